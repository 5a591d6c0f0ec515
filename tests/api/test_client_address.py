"""Rate limits count the real client: X-Forwarded-For is believed only as far as the declared proxies go.

Also: sign-in attempts are limited per username and per address.
"""

import pytest
from django.core.cache import cache

from api.throttles import client_address

# (REMOTE_ADDR, X-Forwarded-For, NUM_PROXIES, TRUSTED_PROXIES, expected client)
CASES = [
    # no proxies declared: the header is ignored, whatever it says
    ("203.0.113.7", None, 0, [], "203.0.113.7"),
    ("203.0.113.7", "198.51.100.1", 0, [], "203.0.113.7"),
    ("203.0.113.7", "1.2.3.4, 5.6.7.8", 0, [], "203.0.113.7"),
    # one proxy in front: the address it saw, i.e. the rightmost entry; what the client prepended is ignored
    ("10.0.0.2", "198.51.100.1", 1, [], "198.51.100.1"),
    ("10.0.0.2", "6.6.6.6, 198.51.100.1", 1, [], "198.51.100.1"),
    ("10.0.0.2", None, 1, [], "10.0.0.2"),
    # two proxies: second from the right
    ("10.0.0.3", "6.6.6.6, 198.51.100.1, 10.0.0.2", 2, [], "198.51.100.1"),
    ("10.0.0.3", "198.51.100.1", 2, [], "198.51.100.1"),  # fewer entries than proxies: the leftmost
    # trusted proxies by address and network: the rightmost address that is not ours
    ("10.0.0.2", "6.6.6.6, 198.51.100.1", 0, ["10.0.0.0/8"], "198.51.100.1"),
    ("10.0.0.3", "6.6.6.6, 198.51.100.1, 10.0.0.2", 0, ["10.0.0.0/8"], "198.51.100.1"),
    ("10.0.0.3", "6.6.6.6, 198.51.100.1, 10.0.0.2", 0, ["10.0.0.3", "10.0.0.2"], "198.51.100.1"),
    ("10.0.0.2", "10.0.0.9, 10.0.0.8", 0, ["10.0.0.0/8"], "10.0.0.9"),  # all ours: the farthest one
    ("10.0.0.2", None, 0, ["10.0.0.0/8"], "10.0.0.2"),
    # a peer that is not a trusted proxy is the client, whatever header it sends
    ("203.0.113.7", "198.51.100.1", 0, ["10.0.0.0/8"], "203.0.113.7"),
    # TRUSTED_PROXIES wins over NUM_PROXIES
    ("203.0.113.7", "198.51.100.1", 1, ["10.0.0.0/8"], "203.0.113.7"),
    # IPv6 and IPv4-mapped peers
    ("2001:db8::5", "2001:db8:1::9", 0, ["2001:db8::/64"], "2001:db8:1::9"),
    ("::ffff:10.0.0.2", "198.51.100.1", 0, ["10.0.0.0/8"], "198.51.100.1"),
    # garbage in the header, left of the client's entry, is never reached
    ("10.0.0.2", "not-an-ip, 198.51.100.1", 0, ["10.0.0.0/8"], "198.51.100.1"),
]


@pytest.mark.parametrize("remote, xff, num, trusted, expected", CASES)
def test_client_address_table(remote, xff, num, trusted, expected):
    meta = {"REMOTE_ADDR": remote}
    if xff is not None:
        meta["HTTP_X_FORWARDED_FOR"] = xff
    assert client_address(meta, num_proxies=num, trusted_proxies=trusted) == expected


def test_settings_default_ignores_the_header(settings):
    settings.NUM_PROXIES = 0
    settings.TRUSTED_PROXIES = []
    assert client_address({"REMOTE_ADDR": "203.0.113.7", "HTTP_X_FORWARDED_FOR": "1.1.1.1"}) == "203.0.113.7"


@pytest.mark.django_db
def test_random_forwarded_for_does_not_reset_the_limit(api, settings):
    """The bug fixed: DRF's get_ident believed X-Forwarded-For when NUM_PROXIES was unset."""
    cache.clear()
    settings.API_ANON_RATE = "5/min"
    codes = [api.get("/api/v1/catalogue/racks/", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}").status_code for i in range(12)]
    cache.clear()
    assert codes[:5] == [200] * 5
    assert codes[5:] == [429] * 7


@pytest.mark.django_db
def test_behind_a_declared_proxy_each_client_has_its_own_limit(api, settings):
    cache.clear()
    settings.API_ANON_RATE = "2/min"
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    a = [api.get("/api/v1/catalogue/racks/", HTTP_X_FORWARDED_FOR="198.51.100.1").status_code for _ in range(3)]
    b = [api.get("/api/v1/catalogue/racks/", HTTP_X_FORWARDED_FOR="198.51.100.2").status_code for _ in range(3)]
    # the client cannot escape by prepending addresses: the proxy's entry is the rightmost
    c = api.get("/api/v1/catalogue/racks/", HTTP_X_FORWARDED_FOR="9.9.9.9, 198.51.100.1")
    cache.clear()
    assert a == [200, 200, 429] and b == [200, 200, 429]
    assert c.status_code == 429 and "detail" in c.json()


@pytest.mark.django_db
def test_throttle_lets_requests_through_when_the_cache_fails(api, settings, monkeypatch):
    settings.API_ANON_RATE = "1/min"

    def broken(*args, **kwargs):
        raise ConnectionError("redis down")

    for operation in ("get", "incr", "add"):  # Redis down: every operation fails
        monkeypatch.setattr(f"rest_framework.throttling.SimpleRateThrottle.cache.{operation}", broken)
    assert [api.get("/api/v1/catalogue/racks/").status_code for _ in range(3)] == [200, 200, 200]


# Sign-in attempts


@pytest.fixture
def ann(django_user_model):
    return django_user_model.objects.create_user("ann-login", password="right-pass-12345")


def _sign_in(client, username, password, addr="203.0.113.10"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=addr)


@pytest.mark.django_db
def test_failed_sign_ins_per_username_are_limited(client, ann, settings):
    cache.clear()
    settings.LOGIN_FAILURE_LIMIT = 3
    codes = [_sign_in(client, "ann-login", "wrong", addr=f"203.0.113.{i}").status_code for i in range(3)]
    assert codes == [200, 200, 200]  # the form again, with its error
    refused = _sign_in(client, "ANN-login", "right-pass-12345", addr="203.0.113.99")  # even the right password, from elsewhere
    cache.clear()
    assert refused.status_code == 429
    assert refused["Retry-After"] == str(settings.LOGIN_FAILURE_WINDOW_SECONDS)
    assert "Too many failed sign-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_failed_sign_ins_per_address_are_limited(client, ann, settings):
    cache.clear()
    settings.LOGIN_FAILURE_LIMIT = 3
    for name in ("bob", "cy", "dee"):
        assert _sign_in(client, name, "guess").status_code == 200
    refused = _sign_in(client, "ann-login", "right-pass-12345")
    other_address = _sign_in(client, "ann-login", "right-pass-12345", addr="198.51.100.5")
    cache.clear()
    assert refused.status_code == 429
    assert other_address.status_code == 302


@pytest.mark.django_db
def test_random_forwarded_for_does_not_escape_the_sign_in_limit(client, ann, settings):
    cache.clear()
    settings.LOGIN_FAILURE_LIMIT = 2
    for i in range(2):
        client.post("/accounts/login/", {"username": f"u{i}", "password": "x"}, HTTP_X_FORWARDED_FOR=f"1.2.3.{i}")
    refused = client.post("/accounts/login/", {"username": "u9", "password": "x"}, HTTP_X_FORWARDED_FOR="9.9.9.9")
    cache.clear()
    assert refused.status_code == 429


@pytest.mark.django_db
def test_success_clears_the_username_count(client, ann, settings):
    cache.clear()
    settings.LOGIN_FAILURE_LIMIT = 3
    _sign_in(client, "ann-login", "wrong", addr="198.51.100.1")
    _sign_in(client, "ann-login", "wrong", addr="198.51.100.2")
    assert _sign_in(client, "ann-login", "right-pass-12345", addr="198.51.100.3").status_code == 302
    client.logout()
    for i in range(2):
        _sign_in(client, "ann-login", "wrong", addr=f"198.51.100.{10 + i}")
    ok = _sign_in(client, "ann-login", "right-pass-12345", addr="198.51.100.20")
    cache.clear()
    assert ok.status_code == 302


@pytest.mark.django_db
def test_admin_sign_in_is_limited_too(client, settings, django_user_model):
    cache.clear()
    settings.LOGIN_FAILURE_LIMIT = 2
    django_user_model.objects.create_user("staffer", password="right-pass-12345", is_staff=True)
    for _ in range(2):
        assert client.post("/admin/login/", {"username": "staffer", "password": "wrong"}).status_code == 200
    refused = client.post("/admin/login/", {"username": "staffer", "password": "right-pass-12345"})
    cache.clear()
    assert refused.status_code == 429
