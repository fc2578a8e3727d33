import pytest
from gateway_room import open_room


@pytest.fixture
def room(tmp_path):
    """A gateway with students ann and bob (day $0.50, term $2.00), upstream the simulator."""
    yield from open_room(tmp_path)
