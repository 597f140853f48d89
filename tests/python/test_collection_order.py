"""The suite's own order (conftest.py): tests marked long_running come before all others, so
that parallel workers start them first and the run does not wait on one started last."""


def test_long_running_tests_are_collected_first(request):
    long_running = [item.get_closest_marker("long_running") is not None for item in request.session.items]
    assert long_running == sorted(long_running, reverse=True)
