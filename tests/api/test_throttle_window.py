"""The rate limiter's previous-window count is remembered only once that window has settled: increments
that other workers make just after a window ends must still count (CI once saw 51 of 200 parallel
requests pass a limit of 50 at a window boundary)."""

from django.core.cache import cache

from api import throttles


def test_a_just_ended_windows_count_is_read_again_until_it_settles():
    cache.clear()
    key = "throttle_test_window"
    cache.set(f"{key}:w7", 10)
    assert throttles._previous_count(cache, key, 7, settled=False) == 10
    cache.incr(f"{key}:w7")  # another worker's request that began in window 7 lands late
    assert throttles._previous_count(cache, key, 7, settled=False) == 11
    assert throttles._previous_count(cache, key, 7, settled=True) == 11  # now remembered
    cache.incr(f"{key}:w7")
    assert throttles._previous_count(cache, key, 7, settled=True) == 11  # one cache read per settled window
    cache.clear()
