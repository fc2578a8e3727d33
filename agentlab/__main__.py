import sys

from agentlab.cli import main

sys.exit(main())
