"""Objects that misbehave when the frontend process unpickles them. This
module imports no torch, so a request carrying them is cheap."""

import os
import sys
import time


def _exit_loudly(message, status):
    print(message, file=sys.stderr, flush=True)
    os._exit(status)


class DiesWhenUnpickled:
    """Ends the frontend process in the middle of a request."""

    def __init__(self, message="frontend process about to die", status=3):
        self.message, self.status = message, status

    def __reduce__(self):
        return _exit_loudly, (self.message, self.status)


class SleepsWhenUnpickled:
    """Keeps the frontend process busy past any short timeout."""

    def __init__(self, seconds=120.0):
        self.seconds = seconds

    def __reduce__(self):
        return time.sleep, (self.seconds,)
