"""What the simulated model writes: one policy per file, each a callable ``request -> Reply``.

- ``careful``: :class:`CarefulAgent`, the default: it hands a request to the policy it asks for;
- ``varied``: the careful agent with a seed, varying as real runs do, for many trials (``agentlab eval``);
- ``city_task``: the city task's steps ("which is warmer? then save a note");
- ``roles``: the workflow roles (classifier, planner, critic, extractor, summariser, writer);
- ``adaptive``: the task variants the fixed workflow did not foresee;
- ``react``: Thought / Action / Action Input prose for a ReAct prompt;
- ``described``: the city task with a weather tool found and filled from its description (notebook 08);
- ``gullible``: obeys every instruction it reads in a tool result (the injection lesson's worst case);
- ``context_agent``: the long report task of the context-engineering lesson;
- ``misbehaving``: loopers, wanderers, careless and slow models for the guards;
- ``slow``: any policy with a simulated response time;
- ``reading``: what they all read in a transcript (text, cities, tool exchanges, error texts).

These are scripted stand-ins for Claude: what they do is how they are written, not how Claude behaves.
"""
