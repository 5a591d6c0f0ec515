"""Designer, designs list and compare pages, and the designer's JSON endpoint (Django test client)."""

import json

import pytest

from planner.services import design_create

pytestmark = pytest.mark.django_db
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


def _initial(response):
    html = response.content.decode()
    start = html.index('<script id="designer-initial" type="application/json">') + len(
        '<script id="designer-initial" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_designer_page_offers_the_catalogue_and_the_study_examples(client):
    html = client.get("/designer/").content.decode()
    assert 'id="designer-options"' in html and "md3460-capacity" in html
    for letter in "ABCDEF":
        assert f"Study rack {letter}" in html
    assert "/static/plotly/plotly-basic.min.js" in html


def test_designer_opens_an_example(client):
    initial = _initial(client.get("/designer/", {"example": "study-d"}))
    assert initial["spec"]["bricks"] == [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}]
    assert initial["spec"]["metadata"]["placement"] == "none"
    assert "No example design" in client.get("/designer/", {"example": "study-z"}).content.decode()


def test_designer_opens_only_designs_you_can_see(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    bob = django_user_model.objects.create_user("bob", password="pw-bob-123456")
    design = design_create(owner=ann, name="Ann's rack", spec=D)
    client.force_login(ann)
    initial = _initial(client.get("/designer/", {"design": design.id}))
    assert initial["design"]["id"] == design.id and initial["design"]["is_owner"] is True
    client.force_login(bob)
    assert "not shared with you" in client.get("/designer/", {"design": design.id}).content.decode()


def test_designer_evaluate_returns_figures_and_rack_svgs(client):
    response = client.post("/designer/evaluate/", {"spec": D}, content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["evaluation"]["read_gbps"] == pytest.approx(36.0)
    assert len(body["svgs"]) == body["evaluation"]["rack_count"] == 1
    assert body["svgs"][0].startswith("<svg") and "PowerVault MD3460 #8" in body["svgs"][0]


@pytest.mark.parametrize(
    "payload, status, key",
    [
        ({"spec": {"bricks": [{"template": "md3460-performance", "count": 0}]}}, 400, "spec"),
        ({"spec": {"bricks": [{"template": "nope", "count": 1}]}}, 400, "spec"),
        ("not json", 400, "detail"),
        ([1, 2], 400, "detail"),
    ],
)
def test_designer_evaluate_rejects_bad_input_with_messages(client, payload, status, key):
    body = payload if isinstance(payload, str) else json.dumps(payload)
    response = client.post("/designer/evaluate/", body, content_type="application/json")
    assert response.status_code == status and key in response.json()


def test_designer_evaluate_refuses_huge_bodies(client):
    response = client.post("/designer/evaluate/", '{"spec": "' + "x" * 300_000 + '"}', content_type="application/json")
    assert response.status_code == 413


def test_designs_page_lists_yours_and_needs_sign_in(client, django_user_model):
    assert client.get("/designs/").status_code == 302
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    design_create(owner=ann, name="Ann's rack", spec=D)
    client.force_login(ann)
    assert "Ann&#x27;s rack" in client.get("/designs/").content.decode()


def test_compare_page_reads_the_study_pairs(client):
    html = client.get("/compare/", {"d": ["ex:study-a", "ex:study-b"], "ref": "ex:study-b"}).content.decode()
    assert 'id="compare-table"' in html
    rows = html[html.index("<tbody>") : html.index("</tbody>")]
    first = rows[: rows.index("</tr>")]
    assert "Study rack A" in first and "<strong>0.65</strong>" in first
    assert "compare-rows" in html


def test_compare_page_explains_what_is_wrong(client):
    assert "Choose at least two designs" in client.get("/compare/", {"d": ["ex:study-a"]}).content.decode()
    assert "no example design" in client.get("/compare/", {"d": ["ex:nope", "ex:study-a"]}).content.decode()
    assert "not visible" not in client.get("/compare/").content.decode()


def test_plotly_js_is_served_from_the_vendored_partial_bundle(client):
    response = client.get("/static/plotly/plotly-basic.min.js")
    assert response.status_code == 200
    head = b"".join(response.streaming_content)[:2000] if response.streaming else response.content[:2000]
    assert b"plotly.js (basic - minified)" in head


def test_shared_link_page_shows_the_design_read_only(client, django_user_model):
    from planner.services import design_share

    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    design = design_create(owner=ann, name="Shared rack D", spec=D)
    design_share(design=design, link=True)
    design.refresh_from_db()
    html = client.get(f"/shared/{design.share_token}/").content.decode()
    assert "Shared rack D" in html and "Shared read-only by ann" in html
    assert '<span id="read-gbps">36.0</span>' in html and "<svg" in html and "nl-sas-4tb" in html
    response = client.get("/shared/not-a-token/")
    assert response.status_code == 404 and "does not lead to a design" in response.content.decode()


def test_api_gives_the_owner_the_share_page_link(client, django_user_model):
    from rest_framework.test import APIClient

    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    design = design_create(owner=ann, name="Shared rack D", spec=D)
    api = APIClient()
    api.force_authenticate(ann)
    body = api.post(f"/api/v1/designs/{design.id}/share/", {"link": True}, format="json").json()
    assert body["share_page_url"].endswith(f"/shared/{body['share_url'].rstrip('/').split('/')[-1]}/")


def test_a_shared_design_that_no_longer_evaluates_says_why_instead_of_a_500(client, django_user_model):
    from planner.models import Design

    owner = django_user_model.objects.create_user("olga", password="pw-olga-123456")
    design = Design.objects.create(
        owner=owner,
        name="Old internal design",
        spec={"bricks": [{"template": "r730xd-internal", "count": 2}], "failover": "paired", "metadata": {"placement": "none"}},
        share_token="old-link-token",
    )
    response = client.get("/shared/old-link-token/")
    assert response.status_code == 409
    assert b"can no longer be evaluated" in response.content and b"failover" in response.content
    assert design.pk


def test_a_design_link_with_an_invalid_design_says_what_is_wrong_in_words(client):
    import base64

    def link(spec):
        return base64.urlsafe_b64encode(json.dumps(spec).encode()).decode().rstrip("=")

    lines = {"bricks": [{"template": "md3460-capacity", "count": 8, "disk": 4}, {"template": "md3460-capacity", "count": 0}]}
    initial = _initial(client.get("/designer/", {"spec": link(lines)}))
    assert initial["error"] == (
        'That design link holds an invalid design: bricks › line 1 › disk: Enter a valid "slug" consisting of letters, '
        "numbers, underscores or hyphens; bricks › line 2 › count: must be between 1 and 500."
    )
    html = client.get("/designer/", {"spec": link({**lines, "rack": 5})}).content.decode()
    assert "ErrorDetail" not in html and "rack: Enter a valid" in html
