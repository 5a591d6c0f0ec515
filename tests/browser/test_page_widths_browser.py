"""Issue 13: every page usable at 1280, 1440 and 1920 px. Signed in, with saved designs, a
calibration, an API token and a shared link, each page is opened at each width and checked in
Chromium: the document does not scroll sideways; no select, input or button sticks out of its cell
or container; no table is wider than its container unless that container is a deliberate sideways
scroller (`.scroll`, the rack row); every select shows its chosen option's whole text; a label does
not touch the control it names. Screenshots: test-artifacts/width-<page>-<px>.png."""

from pathlib import Path

import pytest

from .conftest import screenshot
from .test_designer_browser import _sign_in

pytestmark = pytest.mark.browser
DATA = Path(__file__).resolve().parents[1] / "calibration" / "data"
WIDTHS = (1280, 1440, 1920)

# Returns a list of problems, each a sentence naming the element and the sizes.
CHECK = r"""() => {
  const problems = [], tol = 1;
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).join('.');
    if (el.tagName === 'SELECT' && el.selectedIndex >= 0) s += ` ("${el.options[el.selectedIndex].text}")`;
    else if (el.tagName === 'BUTTON') s += ` ("${el.textContent.trim().slice(0, 40)}")`;
    return s;
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    if (el.closest('.sr-only, [hidden], dialog:not([open])')) return false;
    return getComputedStyle(el).visibility !== 'hidden';
  };
  const box = (el) => {  // the nearest ancestor whose box means something (not an inline span or label)
    let p = el.parentElement;
    while (p && ['inline', 'contents'].includes(getComputedStyle(p).display)) p = p.parentElement;
    return p;
  };
  const contentRight = (el) => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
  };
  const deliberate = (el) => el.closest('.scroll, .rack-row');

  const de = document.documentElement;
  if (de.scrollWidth > window.innerWidth) problems.push(`the page scrolls sideways: ${de.scrollWidth} px wide in a ${window.innerWidth} px window`);

  for (const el of document.querySelectorAll('select, input:not([type=hidden]), button, textarea')) {
    if (!shown(el)) continue;
    const parent = box(el);
    if (!parent) continue;
    const r = el.getBoundingClientRect(), p = parent.getBoundingClientRect();
    if (r.right > p.right + tol || r.left < p.left - tol)
      problems.push(`${name(el)} (${Math.round(r.width)} px) sticks out of its ${name(parent)} (${Math.round(p.width)} px)`);
  }

  for (const t of document.querySelectorAll('table')) {
    if (!shown(t)) continue;
    const c = box(t);
    if (!c || deliberate(t)) continue;
    const r = t.getBoundingClientRect();
    if (r.right > contentRight(c) + tol)
      problems.push(`${name(t)} (${Math.round(r.width)} px) is wider than its ${name(c)} (${Math.round(contentRight(c) - c.getBoundingClientRect().left)} px)`);
  }

  for (const sc of document.querySelectorAll('.scroll')) {  // a table scroller is for narrower windows: here it holds its table
    if (shown(sc) && sc.scrollWidth > sc.clientWidth + tol)
      problems.push(`${name(sc.querySelector('table') || sc)} scrolls sideways: ${sc.scrollWidth} px in ${sc.clientWidth} px`);
  }

  for (const s of document.querySelectorAll('select')) {
    if (!shown(s) || s.multiple || s.selectedIndex < 0) continue;
    const text = s.options[s.selectedIndex].text;
    // a copy of the select holding only the chosen option, sized by the browser to its text
    const probe = s.cloneNode(false);
    probe.removeAttribute('id'); probe.removeAttribute('name');
    const option = document.createElement('option'); option.text = text; probe.appendChild(option);
    for (const [k, v] of [['position', 'absolute'], ['visibility', 'hidden'], ['width', 'auto'], ['min-width', '0'], ['max-width', 'none'], ['left', '0'], ['top', '0']])
      probe.style.setProperty(k, v, 'important');
    s.parentElement.appendChild(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    const have = s.getBoundingClientRect().width;
    if (need > have + tol) problems.push(`${name(s)} cuts its text: needs ${Math.ceil(need)} px, has ${Math.round(have)} px`);
  }

  for (const l of document.querySelectorAll('label[for]')) {
    if (!shown(l)) continue;
    const c = document.getElementById(l.htmlFor);
    if (!c || l.contains(c) || !shown(c)) continue;
    const a = l.getBoundingClientRect(), b = c.getBoundingClientRect();
    if (!(a.top < b.bottom && b.top < a.bottom)) continue;  // not on the same line
    const gap = b.left >= a.left ? b.left - a.right : a.left - b.right;
    if (gap < 4) problems.push(`label "${l.textContent.trim()}" touches its ${name(c)} (gap ${gap.toFixed(1)} px)`);
  }
  return problems;
}"""


def _designer_ready(page):
    page.wait_for_function("document.getElementById('status').textContent.includes('bricks,')")
    page.wait_for_selector("#cost-chart .main-svg")


def _blank_designer(page):
    page.click("#start-blank")
    page.click("#add-brick")
    _designer_ready(page)


@pytest.fixture
def site(page, django_user_model):
    """Signed in as 'wendy' (staff) with two saved designs (one shared by link), a calibration and a token."""
    from planner.services import calibration_create, design_create, design_share, example_design
    from planner.services.tokens import token_create

    _sign_in(page, "wendy", "pw-wendy-123456")
    wendy = django_user_model.objects.get(username="wendy")
    d = design_create(owner=wendy, name="Site D, performance", spec=example_design(slug="study-d")["spec"])
    a = design_create(owner=wendy, name="Site A, capacity", spec=example_design(slug="study-a")["spec"])
    design_share(design=d, link=True)
    cal = calibration_create(
        owner=wendy,
        name="OSS 1 sweep, November",
        brick_template="md3460-performance",
        obdfilter=("obdfilter_sweep.txt", (DATA / "obdfilter_sweep.txt").read_text()),
        ior=("ior_330.txt", (DATA / "ior_330.txt").read_text()),
        ior_bricks=8,
    )
    token_create(user=wendy, name="procurement script")
    wendy.is_staff = True  # sees the staff-only device-type import page too
    wendy.save(update_fields=["is_staff"])
    d.refresh_from_db()
    return {"design": d, "other": a, "calibration": cal}


def _pages(site):
    d, a, cal = site["design"], site["other"], site["calibration"]
    solve = "/solve/?run=1&usable_pib=1&read_gbps=9&placement=in_rack&max_bricks=60"
    return [
        ("home", "/", None),
        ("designer-blank", "/designer/", _blank_designer),
        ("designer-study-d", "/designer/?example=study-d", _designer_ready),
        ("designer-grid-site", "/designer/?example=grid-site", _designer_ready),
        ("designer-saved", f"/designer/?design={d.pk}", _designer_ready),
        ("designs", "/designs/", None),
        ("compare", f"/compare/?d={d.pk}&d={a.pk}", lambda p: p.wait_for_selector("#compare-table")),
        ("solve", solve, lambda p: p.wait_for_selector("#frontier-chart .main-svg")),
        ("catalogue", "/catalogue/", None),
        ("calibrations", "/calibrations/", None),
        ("calibration", f"/calibrations/{cal.pk}/", lambda p: p.wait_for_selector("#pm-chart .main-svg")),
        ("tokens", "/tokens/", None),
        ("shared", f"/shared/{d.share_token}/", None),
        ("dcim-export", f"/dcim/export/?design={d.pk}", None),
        ("dcim-send", f"/dcim/send/?design={d.pk}", None),
        ("dcim-import", "/catalogue/import/", None),
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_overflows_at_common_widths(page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    found = []
    for name, url, ready in _pages(site):
        page.goto(page.base_url + url)
        if ready:
            ready(page)
        page.wait_for_timeout(150)  # charts settle to the panel's width
        problems = page.evaluate(CHECK)
        screenshot(page, f"width-{name}-{width}")
        found += [f"{name} at {width} px: {p}" for p in problems]

    anonymous = page.context.browser.new_context(viewport={"width": width, "height": 900})
    try:
        login = anonymous.new_page()
        login.goto(page.base_url + "/accounts/login/")
        found += [f"login at {width} px: {p}" for p in login.evaluate(CHECK)]
        screenshot(login, f"width-login-{width}")
    finally:
        anonymous.close()
    assert not found, "\n".join(found)
