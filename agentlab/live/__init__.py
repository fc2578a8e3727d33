"""Running on a student's own key: the key kept out of every artefact, errors in one line, spending
capped before the call that would cross, and live runs recorded once and replayed offline."""
