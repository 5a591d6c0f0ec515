"""Hostile input gets a 4xx JSON answer naming the problem, never a 5xx and never an HTML page
(issue 14's table): non-finite numbers in every float field, lone surrogates, deep nesting, huge
arrays, wrong types, bad counts, unknown and overlong slugs, path traversal, null bytes, duplicate
keys, non-UTF-8 and wrong media types, oversized and empty bodies, paging abuse, malformed share
tokens, binary uploads and junk proxy headers."""

import json

import pytest

pytestmark = pytest.mark.django_db

BRICK = {"template": "md3460-performance", "count": 1}
SPEC = {"bricks": [BRICK]}
TEMPLATE = {
    "slug": "hostile-r730xd",
    "name": "R730xd",
    "server": "r730xd",
    "head": "r730xd-bays",
    "disk": "nl-sas-6tb",
    "network_adapter": "eth-10g",
    "raid_level": "raid6",
    "raid_data_disks": 14,
    "groups_per_enclosure": 1,
}
NOT_FINITE = ['"NaN"', '"Infinity"', '"1e309"', '"-1e309"', "NaN", "Infinity", "1e309", "-1e309"]


def _with(obj: dict, path: str, marker: str = "@@") -> str:
    """The JSON of `obj` with `marker` put at the dotted `path` (a list index is a number), so that
    a raw token (NaN, 1e309, ...) can be spliced in where json.dumps would refuse or round it."""
    target = json.loads(json.dumps(obj))
    keys = path.split(".")
    node = target
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = marker
    else:
        node[last] = marker
    return json.dumps(target).replace(f'"{marker}"', "{value}")


# (url, a valid-looking body, the dotted path of a float field in it): every float field of each input
SIZING = {"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, 1]]}}
FLOAT_FIELDS = [
    ("/api/v1/evaluate/", {**SPEC, "clients": {"count": 2, "adapter": "ib-fdr"}}, "clients.rpc_round_trip_ms"),
    ("/api/v1/evaluate/", SPEC, "fabric.oversubscription"),
    ("/api/v1/evaluate/", SPEC, "fabric.core_gbps"),
    ("/api/v1/solve/", {}, "targets.usable_pib"),
    ("/api/v1/solve/", {}, "targets.read_gbps"),
    ("/api/v1/solve/", {}, "targets.write_gbps"),
    ("/api/v1/solve/", {"targets": {"usable_pib": 1}}, "targets.budget"),
    ("/api/v1/solve/", {"demand": {"job_slots": 10}}, "demand.mb_per_s_per_job"),
    ("/api/v1/solve/", {"demand": {"clients": 10}}, "demand.gbps_per_client"),
    ("/api/v1/solve/", {"demand": {"annual_growth": 0.3, "years": 3}}, "demand.current_pib"),
    ("/api/v1/solve/", {"demand": {"current_pib": 1, "years": 3}}, "demand.annual_growth"),
    ("/api/v1/solve/", {"demand": {"current_pib": 1, "annual_growth": 0.3}}, "demand.years"),
    ("/api/v1/solve/", SIZING, "metadata_sizing.headroom"),
    ("/api/v1/solve/", SIZING, "metadata_sizing.dom_stripe_bytes"),
    ("/api/v1/solve/", SIZING, "metadata_sizing.inode_ratio_bytes"),
    ("/api/v1/solve/", SIZING, "metadata_sizing.histogram.0.1"),
    ("/api/v1/solve/", SIZING, "metadata_sizing.histogram.0.0"),
    (
        "/api/v1/solve/",
        {"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "percentiles": {"50": 1}}},
        "metadata_sizing.percentiles.100",
    ),
    ("/api/v1/compare/", {"designs": [{"spec": SPEC}, {"spec": SPEC}]}, "designs.1.spec.fabric.oversubscription"),
    ("/api/v1/designs/", {"name": "n", "spec": {**SPEC, "clients": {"count": 2, "adapter": "ib-fdr"}}}, "spec.clients.rpc_round_trip_ms"),
    ("/api/v1/brick-templates/", TEMPLATE, "fs_overhead_fraction"),
    ("/api/v1/brick-templates/", TEMPLATE, "software_raid_read_mbps"),
    ("/api/v1/brick-templates/", TEMPLATE, "software_raid_write_mbps"),
]


def _json_4xx(response):
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), (response["Content-Type"], response.content[:300])
    return response.json()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("hostile", password="pw-hostile-12345")


@pytest.fixture
def signed_in(api, user):
    api.force_authenticate(user)
    return api


@pytest.mark.parametrize("value", NOT_FINITE)
@pytest.mark.parametrize("url, base, path", FLOAT_FIELDS, ids=[f"{u.split('/')[3]}:{p}" for u, _, p in FLOAT_FIELDS])
def test_a_number_that_is_not_finite_is_a_400_naming_the_field(signed_in, url, base, path, value):
    response = signed_in.post(url, _with(base, path).replace("{value}", value), content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    body = _json_4xx(response)
    if value in ("NaN", "Infinity"):  # not JSON at all: refused as the body is read, naming the token
        assert value in body["detail"], body
    else:  # a string, or a number that overflows to infinity: the field says what is wrong
        named = [key for key in path.split(".") if not key.isdigit()][-1]
        assert named in json.dumps(body), body


DEEP = "[" * 10_000 + "]" * 10_000
A_LOT_OF_DIGITS = "9" * 5_000  # past Python's 4,300-digit limit for int()
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x00IEND\xaeB`\x82"
)


def j(obj) -> str:
    return json.dumps(obj)


# (method, url, body, content type, expected status, words the answer holds)
E, S, D, C, T = "/api/v1/evaluate/", "/api/v1/solve/", "/api/v1/designs/", "/api/v1/compare/", "/api/v1/brick-templates/"
APPJSON = "application/json"
CASES = {
    # lone surrogates, in keys and in values
    "surrogate-key-evaluate": (
        "post",
        E,
        '{"bricks": [{"template": "md3460-performance", "count": 1}], "\\ud800": 1}',
        APPJSON,
        400,
        "unknown field",
    ),
    "surrogate-key-brick": (
        "post",
        E,
        '{"bricks": [{"template": "md3460-performance", "count": 1, "\\udfff": 2}]}',
        APPJSON,
        400,
        "unknown field",
    ),
    "surrogate-key-solve": ("post", S, '{"\\ud800": 1}', APPJSON, 400, "unknown field"),
    "surrogate-key-designs": (
        "post",
        D,
        '{"name": "n", "spec": {"bricks": [{"template": "md3460-performance", "count": 1}]}, "\\ud800": 1}',
        APPJSON,
        400,
        "unknown field",
    ),
    "surrogate-value-template": ("post", E, '{"bricks": [{"template": "\\ud800", "count": 1}]}', APPJSON, 400, "template"),
    "surrogate-value-name-evaluate": (
        "post",
        E,
        '{"name": "a\\ud800b", "bricks": [{"template": "md3460-performance", "count": 1}]}',
        APPJSON,
        400,
        "name",
    ),
    "surrogate-value-name-designs": (
        "post",
        D,
        '{"name": "\\udc00", "spec": {"bricks": [{"template": "md3460-performance", "count": 1}]}}',
        APPJSON,
        400,
        "name",
    ),
    "surrogate-value-label-compare": (
        "post",
        C,
        '{"designs": [{"label": "\\ud800", "spec": {"bricks": [{"template": "md3460-performance", "count": 1}]}}, {"spec": {"bricks": [{"template": "md3460-performance", "count": 1}]}}]}',
        APPJSON,
        400,
        "label",
    ),
    "surrogate-value-token-name": ("post", "/api/v1/tokens/", '{"name": "\\ud800"}', APPJSON, 400, "name"),
    "surrogate-value-template-name": ("post", T, j(TEMPLATE).replace('"R730xd"', '"\\udbff"'), APPJSON, 400, "name"),
    "surrogate-value-share-user": ("post", T + "md3460-performance/share/", '{"users": ["\\ud800"]}', APPJSON, 403, ""),
    # deep nesting and huge arrays
    "deep-body": ("post", E, DEEP, APPJSON, 400, "nested too deeply"),
    "deep-bricks": ("post", E, '{"bricks": ' + DEEP + "}", APPJSON, 400, "nested too deeply"),
    "deep-solve-histogram": (
        "post",
        S,
        '{"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 10, "histogram": ' + DEEP + "}}",
        APPJSON,
        400,
        "",
    ),
    "nested-500-levels": ("post", E, '{"bricks": ' + "[" * 500 + "]" * 500 + "}", APPJSON, 400, "bricks"),
    "huge-bricks-array": ("post", E, j({"bricks": [BRICK] * 15_000}), APPJSON, 400, "bricks"),
    "huge-templates-array": ("post", S, j({"targets": {"usable_pib": 1}, "templates": ["a"] * 100_000}), APPJSON, 400, "templates"),
    "huge-compare-array": ("post", C, j({"designs": [{"spec": SPEC}] * 5_000}), APPJSON, 400, "2 to 8"),
    "huge-histogram": (
        "post",
        S,
        j({"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 10, "histogram": [[1, 1]] * 50_000}}),
        APPJSON,
        400,
        "histogram",
    ),
    # wrong types everywhere
    "string-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": "8"}]}), APPJSON, 400, "count"),
    "bool-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": True}]}), APPJSON, 400, "count"),
    "float-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": 1.5}]}), APPJSON, 400, "count"),
    "list-for-object-metadata": ("post", E, j({**SPEC, "metadata": ["in_rack"]}), APPJSON, 400, "metadata"),
    "object-for-list-bricks": ("post", E, j({"bricks": BRICK}), APPJSON, 400, "bricks"),
    "string-for-object-clients": ("post", E, j({**SPEC, "clients": "64"}), APPJSON, 400, "clients"),
    "number-for-string-name": ("post", E, j({**SPEC, "name": 0}), APPJSON, 400, "name"),
    "number-for-bool-mixes": ("post", S, j({"targets": {"usable_pib": 1}, "mixes": 0}), APPJSON, 400, "mixes"),
    "list-body": ("post", E, "[1, 2, 3]", APPJSON, 400, ""),
    "string-body": ("post", S, '"bricks"', APPJSON, 400, ""),
    "null-body": ("post", C, "null", APPJSON, 400, ""),
    "number-for-slug-list": ("post", S, j({"targets": {"usable_pib": 1}, "templates": [1, 2]}), APPJSON, 400, "templates"),
    "string-version": ("put", D + "{design}/", j({"version": "1", "name": "x"}), APPJSON, 400, "version"),
    "string-design-id-compare": ("post", C, j({"designs": [{"design": "1"}, {"spec": SPEC}]}), APPJSON, 400, "design"),
    "both-design-and-spec": ("post", C, j({"designs": [{"design": 1, "spec": SPEC}, {"spec": SPEC}]}), APPJSON, 400, "either"),
    # negative, zero and huge counts
    "negative-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": -1}]}), APPJSON, 400, "between 1 and"),
    "zero-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": 0}]}), APPJSON, 400, "between 1 and"),
    "huge-count": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": 10**20}]}), APPJSON, 400, "between 1 and"),
    "5000-digit-count": ("post", E, '{"bricks": [{"template": "md3460-performance", "count": ' + A_LOT_OF_DIGITS + "}]}", APPJSON, 400, ""),
    "no-bricks": ("post", E, j({"bricks": []}), APPJSON, 400, "bricks"),
    "one-design-to-compare": ("post", C, j({"designs": [{"spec": SPEC}]}), APPJSON, 400, "2 to 8"),
    "negative-expansions": ("post", E, j({"bricks": [{**BRICK, "expansions": -1}]}), APPJSON, 400, "expansions"),
    "huge-max-bricks": ("post", S, j({"targets": {"usable_pib": 1}, "max_bricks": 10**9}), APPJSON, 400, "max_bricks"),
    "compare-reference-out-of-range": (
        "post",
        C,
        j({"designs": [{"spec": SPEC}, {"spec": SPEC}], "reference": 7}),
        APPJSON,
        400,
        "reference",
    ),
    # unknown slugs and ids
    "unknown-template": ("post", E, j({"bricks": [{"template": "no-such-brick", "count": 1}]}), APPJSON, 400, "no-such-brick"),
    "unknown-disk": ("post", E, j({"bricks": [{**BRICK, "disk": "no-such-disk"}]}), APPJSON, 400, "disk"),
    "unknown-rack": ("post", E, j({**SPEC, "rack": "no-such-rack"}), APPJSON, 400, "rack"),
    "unknown-price-list": ("post", E, j({**SPEC, "price_list": "no-such-list"}), APPJSON, 400, "price_list"),
    "unknown-calibration": ("post", E, j({**SPEC, "calibration": 999999}), APPJSON, 400, "calibration"),
    "unknown-catalogue-slug": ("get", "/api/v1/catalogue/disks/no-such-disk/", None, None, 404, "detail"),
    "unknown-design-id": ("get", D + "999999999/", None, None, 404, "detail"),
    "huge-design-id": ("get", D + "9" * 40 + "/", None, None, 404, ""),
    "unknown-saved-design-compared": ("post", C, j({"designs": [{"design": 999999}, {"spec": SPEC}]}), APPJSON, 400, "no design 999999"),
    # overlong strings
    "overlong-name": ("post", E, j({**SPEC, "name": "x" * 201}), APPJSON, 400, "name"),
    "overlong-template-slug": ("post", E, j({"bricks": [{"template": "a" * 10_000, "count": 1}]}), APPJSON, 400, "template"),
    "overlong-design-name": ("post", D, j({"name": "n" * 5_000, "spec": SPEC}), APPJSON, 400, "name"),
    "overlong-catalogue-slug": ("get", "/api/v1/catalogue/disks/" + "a" * 5_000 + "/", None, None, 404, ""),
    "overlong-token-name": ("post", "/api/v1/tokens/", j({"name": "t" * 1_000}), APPJSON, 400, "name"),
    # path traversal in slugs
    "traversal-template": ("post", E, j({"bricks": [{"template": "../../etc/passwd", "count": 1}]}), APPJSON, 400, "template"),
    "traversal-catalogue-path": ("get", "/api/v1/catalogue/disks/..%2F..%2Fetc%2Fpasswd/", None, None, 404, ""),
    "traversal-template-path": ("get", T + "..%2F..%2Fsettings/", None, None, 404, ""),
    "traversal-export-reference": (
        "post",
        D + "{design}/exports/",
        j({"format": "pdf-a4", "reference": "../../etc/passwd"}),
        APPJSON,
        400,
        "reference",
    ),
    # null bytes
    "null-byte-name": ("post", E, j({**SPEC, "name": "a\x00b"}), APPJSON, 400, "name"),
    "null-byte-template": ("post", E, j({"bricks": [{"template": "md3460\x00", "count": 1}]}), APPJSON, 400, "template"),
    "null-byte-design-name": ("post", D, j({"name": "\x00", "spec": SPEC}), APPJSON, 400, "name"),
    # NUL in a slug that names a catalogue part: PostgreSQL cannot compare it (was a 500 there, found by schemathesis)
    "null-byte-template-part": (
        "post",
        "/api/v1/brick-templates/",
        j({"name": "x", "slug": "x", "server": "r730xd", "head": "@\x00y", "disk": "hgst-he8-8tb"}),
        APPJSON,
        400,
        "'head'",
    ),
    "null-byte-nested": ("post", E, j({"bricks": [{"template": "md3460-performance", "count": 1, "x\x00": 1}]}), APPJSON, 400, "bricks[0]"),
    "null-byte-deep": ("post", E, "[" * 900 + '"\\u0000"' + "]" * 900, APPJSON, 400, "JSON parse error"),
    "null-byte-search": ("get", "/api/v1/catalogue/disks/?search=a%00b", None, None, 400, "Null characters"),
    # duplicate keys (which one wins differs between parsers: refused)
    "duplicate-key-top": (
        "post",
        E,
        '{"bricks": [{"template": "md3460-performance", "count": 1}], "name": "a", "name": "b"}',
        APPJSON,
        400,
        "name",
    ),
    "duplicate-key-nested": (
        "post",
        E,
        '{"bricks": [{"template": "md3460-performance", "count": 1, "count": 500}]}',
        APPJSON,
        400,
        "count",
    ),
    # bodies: not UTF-8, wrong media types, over the limit, empty
    "latin-1-body": ("post", E, '{"name": "caf\xe9", "bricks": []}'.encode("latin-1"), APPJSON, 400, ""),
    "binary-body": ("post", E, PNG, APPJSON, 400, ""),
    "form-body": ("post", E, "bricks=1", "application/x-www-form-urlencoded", 415, "Unsupported media type"),
    "multipart-body": (
        "post",
        S,
        b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
        "multipart/form-data; boundary=x",
        415,
        "",
    ),
    "text-body": ("post", C, j({"designs": []}), "text/plain", 415, ""),
    "xml-body": ("post", E, "<spec/>", "application/xml", 415, ""),
    "over-size-limit": ("post", E, j({**SPEC, "name": "x" * (1024 * 1024)}), APPJSON, 413, "limit"),
    "over-request-limit": ("post", S, b"{" + b" " * (5 * 1024 * 1024) + b"}", APPJSON, 413, "limit"),
    "empty-body-evaluate": ("post", E, "", APPJSON, 400, "bricks"),
    "empty-body-compare": ("post", C, "", APPJSON, 400, "designs"),
    "unknown-charset": ("post", E, j({"bricks": []}), "application/json; charset=no-such-codec", 400, "bricks"),  # read as UTF-8
    "truncated-json": ("post", E, '{"bricks": [{"template": "md3460-perf', APPJSON, 400, "JSON parse error"),
    # paging abuse
    "page-zero": ("get", "/api/v1/catalogue/disks/?page=0", None, None, 400, "page"),
    "page-not-a-number": ("get", "/api/v1/catalogue/disks/?page=abc", None, None, 400, "page"),
    "page-negative": ("get", "/api/v1/catalogue/racks/?page=-1", None, None, 400, "page"),
    "page-huge": ("get", "/api/v1/catalogue/disks/?page=" + "9" * 5_000, None, None, 404, ""),
    "page-past-the-last": ("get", "/api/v1/catalogue/disks/?page=9999", None, None, 404, ""),
    "page-last-word": ("get", "/api/v1/catalogue/disks/?page=last", None, None, 400, "page"),
    "page-size-negative": ("get", "/api/v1/catalogue/disks/?page_size=-1", None, None, 400, "page_size"),
    "page-size-zero": ("get", "/api/v1/brick-templates/?page_size=0", None, None, 400, "page_size"),
    "page-size-huge": ("get", "/api/v1/catalogue/disks/?page_size=1000000000", None, None, 400, "page_size"),
    "page-size-float": ("get", D + "?page_size=1.5", None, None, 400, "page_size"),
    "page-twice": ("get", "/api/v1/catalogue/disks/?page=1&page=2", None, None, 400, "once"),
    "owned-not-a-bool": ("get", T + "?owned=maybe", None, None, 400, "owned"),
    "filter-not-a-choice": ("get", "/api/v1/catalogue/disks/?interface=floppy", None, None, 400, "interface"),
    "filter-empty": ("get", "/api/v1/catalogue/enclosures/?kind=", None, None, 400, "kind"),
    "token-name-a-number": ("post", "/api/v1/tokens/", j({"name": 0}), APPJSON, 400, "name"),
    "token-expiry-a-number": ("post", "/api/v1/tokens/", j({"name": "t", "expires_at": 12345}), APPJSON, 400, "expires_at"),
    "token-expiry-not-a-date": ("post", "/api/v1/tokens/", j({"name": "t", "expires_at": "2999-99-99"}), APPJSON, 400, "expires_at"),
    "token-expiry-year-0": ("post", "/api/v1/tokens/", j({"name": "t", "expires_at": "0000-01-01T00:00:00Z"}), APPJSON, 400, "expires_at"),
    # share tokens of the wrong shape
    "share-token-bad-chars": ("get", "/api/v1/shared/abc$%25def/", None, None, 404, ""),
    "share-token-unknown": ("get", "/api/v1/shared/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/", None, None, 404, ""),
    "share-token-overlong": ("get", "/api/v1/shared/" + "A" * 10_000 + "/", None, None, 404, ""),
    "share-token-traversal": ("get", "/api/v1/shared/..%2F..%2Fadmin/", None, None, 404, ""),
    "share-token-export": ("post", "/api/v1/shared/nope/exports/", j({"format": "csv"}), APPJSON, 404, ""),
    "solve-job-not-a-uuid": ("get", "/api/v1/solve/jobs/not-a-uuid/", None, None, 404, ""),
    "solve-job-unknown": ("get", "/api/v1/solve/jobs/00000000-0000-0000-0000-000000000000/", None, None, 404, ""),
    # a histogram with NaN, and fractions that say nothing
    "histogram-nan": (
        "post",
        S,
        '{"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, NaN]]}}',
        APPJSON,
        400,
        "NaN",
    ),
    "histogram-1e309": (
        "post",
        S,
        '{"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, 1e309]]}}',
        APPJSON,
        400,
        "finite",
    ),
    "histogram-zero-sum": (
        "post",
        S,
        j({"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, 0]]}}),
        APPJSON,
        400,
        "zero",
    ),
    "histogram-negative": (
        "post",
        S,
        j({"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, -1]]}}),
        APPJSON,
        400,
        "histogram",
    ),
    "percentile-not-a-number": (
        "post",
        S,
        j({"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 10, "percentiles": {"half": 1}}}),
        APPJSON,
        400,
        "percentiles",
    ),
    # unknown API paths and methods
    "unknown-api-path": ("get", "/api/v1/no-such-thing/", None, None, 404, "No API endpoint"),
    "method-not-allowed": ("delete", E, None, None, 405, "not allowed"),
}


@pytest.fixture
def design(user):
    from planner.services import design_create

    return design_create(owner=user, name="Mine", spec=SPEC)


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_input_is_a_4xx_json_answer(signed_in, design, case):
    method, url, body, content_type, expected, words = CASES[case]
    url = url.replace("{design}", str(design.id))
    kwargs = {} if body is None else {"data": body, "content_type": content_type}
    response = getattr(signed_in, method)(url, **kwargs)
    answer = _json_4xx(response)
    assert response.status_code == expected, (response.status_code, response.content[:300])
    assert words in json.dumps(answer), answer


def _upload(api, **files):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = {"name": "hostile", "brick_template": "md3460-performance"}
    body.update({field: SimpleUploadedFile(name, content) for field, (name, content) in files.items()})
    return api.post("/api/v1/calibrations/", body, format="multipart")


IOR_JSON = '{"Version": "3.3.0", "summary": [{"operation": "write", "bwMaxMIB": %s, "numTasks": 64}, {"operation": "read", "bwMaxMIB": 4000.0, "numTasks": 64}]}'
UPLOADS = {
    "obdfilter-binary": {"obdfilter": ("survey.out", PNG)},
    "obdfilter-null-bytes": {"obdfilter": ("survey.out", b"ost 1 sz 1048576K rsz 1024K obj 1 thr 1 write \x00\x00 [ 1.0, 2.0]\n")},
    "obdfilter-random-bytes": {"obdfilter": ("survey.out", bytes(range(256)) * 16)},
    "obdfilter-over-1-mib": {"obdfilter": ("survey.out", b"x" * (1024 * 1024 + 1))},
    "ior-binary": {"ior": ("ior.json", PNG)},
    **{
        f"ior-json-{v.strip(chr(34)).lower()}{'-string' if v.startswith(chr(34)) else ''}": {"ior": ("ior.json", (IOR_JSON % v).encode())}
        for v in NOT_FINITE
    },
    "ior-json-deep": {"ior": ("ior.json", ('{"summary": ' + DEEP + "}").encode())},
    "ior-json-surrogate": {"ior": ("ior.json", b'{"summary": [{"operation": "\\ud800", "bwMaxMIB": 1.0}]}')},
}


@pytest.mark.parametrize("case", list(UPLOADS))
def test_a_hostile_upload_is_a_400_json_answer(signed_in, case):
    response = _upload(signed_in, **UPLOADS[case])
    assert response.status_code == 400, (response.status_code, response.content[:300])
    _json_4xx(response)


@pytest.mark.parametrize(
    "header",
    ["junk", "1.2.3.4.5, ::::, 999.999.999.999", "\x00", ", , ,", "x" * 8_000, "127.0.0.1, 10.0.0.1, " * 200],
    ids=["word", "bad-addresses", "null", "commas", "long", "many-hops"],
)
def test_junk_in_x_forwarded_for_neither_breaks_nor_sways_the_answer(api, header):
    bad = api.post(E, j({"bricks": []}), content_type=APPJSON, HTTP_X_FORWARDED_FOR=header)
    assert bad.status_code == 400 and bad.json() == {"bricks": ["This list may not be empty."]}
    missing = api.get("/api/v1/catalogue/disks/no-such-disk/", HTTP_X_FORWARDED_FOR=header)
    _json_4xx(missing)
    assert missing.status_code == 404


@pytest.mark.parametrize(
    "authorization",
    ["Token", "Token a b", "Token \xff\xfe", "Token " + "k" * 5_000, "Token srp_wrong", "Bearer abc", "Basic Og=="],
    ids=["no-key", "two-keys", "not-ascii", "overlong", "unknown", "bearer", "basic"],
)
def test_a_malformed_or_unknown_credential_is_a_4xx_json_answer(api, authorization):
    response = api.get(D, HTTP_AUTHORIZATION=authorization)
    _json_4xx(response)
    assert response.status_code in (401, 403)


def test_spreadsheet_cells_that_start_like_formulas_stay_text(tmp_path):
    import csv
    import io

    from openpyxl import load_workbook

    from planner.rendering.sheet import bom_csv, bom_xlsx

    rows = [["disk", "Vendor", '=HYPERLINK("http://x")', "@slug", "+desc", 1, 300.0, "USD", 300.0]]
    totals = {"capex": 300.0, "opex": 0.0, "total": 300.0}
    text = bom_csv(rows, currency="USD", totals=totals).decode()
    cells = next(r for r in csv.reader(io.StringIO(text)) if r and r[0] == "disk")
    assert cells[2] == '\'=HYPERLINK("http://x")' and cells[3] == "'@slug" and cells[4] == "'+desc"
    data = bom_xlsx(rows, currency="USD", totals=totals, title="=1+1 design", notes=["-note"])
    wb = load_workbook(io.BytesIO(data))
    ws = wb["Bill of materials"]
    assert ws["A1"].value == "'=1+1 design" and ws["A1"].data_type == "s"
    assert all(not str(c.value).startswith(("=", "+", "@")) for row in ws.iter_rows() for c in row if c.value is not None)
    assert wb["Notes"]["A1"].value == "'-note"


@pytest.mark.parametrize(
    "kind, slug, spec",
    [
        ("brick-templates", "md3460-capacity", {"bricks": [{"template": "md3460-capacity", "count": 1}]}),
        ("disks", "nl-sas-6tb", {"bricks": [{"template": "md3460-performance", "count": 1, "disk": "nl-sas-6tb"}]}),
        ("tuning-profiles", "4mib-rpc", {"bricks": [{"template": "md3460-performance", "count": 1}], "tuning": "4mib-rpc"}),
    ],
)
def test_deleting_a_catalogue_record_that_designs_use_is_a_409_naming_them(api, django_user_model, kind, slug, spec):
    from planner.services import design_create

    owner = django_user_model.objects.create_user("user1", password="pw-user1-123456")
    design = design_create(owner=owner, name="Keeps it", spec=spec)
    staff = django_user_model.objects.create_user("staff1", password="pw-staff1-123456", is_staff=True)
    api.force_authenticate(staff)
    response = api.delete(f"/api/v1/catalogue/{kind}/{slug}/")
    assert response.status_code == 409, response.content
    assert "'Keeps it'" in response.json()["detail"] and response.json()["designs"] == [design.id]
    assert api.get(f"/api/v1/catalogue/{kind}/{slug}/").status_code == 200


@pytest.mark.parametrize(
    "field, value",
    [("brick_template", "md3460\x00"), ("name", "a\x00b"), ("ior_bricks", "4\x00")],
)
def test_nul_in_a_multipart_field_is_a_400_naming_it(signed_in, field, value):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = {"name": "hostile", "brick_template": "md3460-performance", field: value}
    body["ior"] = SimpleUploadedFile("ior.json", (IOR_JSON % "4000.0").encode())
    response = signed_in.post("/api/v1/calibrations/", body, format="multipart")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert field in json.dumps(_json_4xx(response))


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/catalogue/disks/a%00b/",
        "/api/v1/brick-templates/a%00b/",
        "/api/v1/catalogue/servers/?ordering=%00",
        "/api/v1/designs/?search=%00",
        "/shared/a%00b/",
    ],
)
def test_nul_in_a_url_is_never_a_server_error(signed_in, url):
    response = signed_in.get(url)
    assert response.status_code < 500, (response.status_code, response.content[:300])
    if response.status_code >= 400:
        _json_4xx(response)
