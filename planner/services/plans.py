"""Capacity plans over years: demand against the supply of the designs in service each year, the year
capacity and throughput run out, the cost per year (capex with a price trend, support, energy, rack
space), and the cheapest purchase the solver proposes where supply falls short.

A plan's body (the plan spec) is validated structurally by `api.serializers_plans.PlanSpecSerializer`;
this module checks what needs the database (saved designs visible to the owner, labels to retire) and
computes. Every figure of a design comes from `design_evaluate` (one catalogue snapshot per plan); the
yearly sums are plain arithmetic written here, in one place.

Units: capacity usable PiB (2^50 bytes), throughput GB/s (10^9 B/s), money in the designs' currency.
A design added in year Y is in service from Y to the year before it is retired (by a later phase's
`retire`, or `end_of_support_years` after Y, whichever comes first).
"""

from __future__ import annotations

import datetime

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from planner.models import Plan
from planner.spec import SpecError, normalise_spec

from . import budget
from .catalogue import catalogue_snapshot
from .designs import designs_visible_to, share_with
from .evaluation import design_evaluate, design_resolve

MAX_PHASES = 20
MAX_ADDS_PER_PHASE = 10
MAX_HORIZON_YEARS = 30
MAX_DEMAND_YEARS = 60
MAX_PROPOSALS = 6
HOURS_PER_YEAR = 8766.0  # 365.25 days x 24 h, as the engine's energy figure counts a year

# Settings: each has a default and says where it comes from. None means "from the design's price list".
SETTINGS_DEFAULTS = {
    "horizon_years": 10,
    "price_trend_per_tb": -0.10,
    "price_trend_per_server": -0.03,
    "support_per_server_year": None,
    "energy_price_per_kwh": None,
    "pue": None,
    "rack_cost_per_u_year": 300.0,
    "end_of_support_years": None,
    "propose": True,
    "proposal_covers_years": 2,
}
SETTINGS_SOURCES = {
    "horizon_years": "Years the timeline covers, from the start year (at most 30).",
    "price_trend_per_tb": (
        "Assumption: the yearly change of the price of disks (per TB), applied to a phase's disk lines from the start "
        "year's prices. -10 %/yr is of the order of the fall in hard-disk price per TB over the last decade; set your own."
    ),
    "price_trend_per_server": (
        "Assumption: the yearly change of the price of everything but disks (servers, enclosures, adapters, racks), "
        "applied from the start year's prices. -3 %/yr is a labelled assumption, not a measurement; set your own."
    ),
    "support_per_server_year": "Default: the design's price list (its support line per server and year).",
    "energy_price_per_kwh": "Default: the design's price list (energy price per kWh).",
    "pue": "Default: the design's price list (power usage effectiveness of the machine room).",
    "rack_cost_per_u_year": (
        "Assumption: the cost of one rack unit for a year (a 42 U colocation rack at about 1,000 a month is about "
        "300 per U-year); set your site's figure."
    ),
    "end_of_support_years": "Default: the price list's years of service (support contract length); a phase may set its own.",
    "propose": "Whether the timeline asks the solver for the cheapest purchase where supply falls short.",
    "proposal_covers_years": (
        "A proposed purchase covers the largest shortfall of its year and the years after it, this many years in all "
        "(1: only its own year). A choice of how far ahead to buy, not a measurement."
    ),
}


def this_year() -> int:
    return datetime.date.today().year


# ---------------------------------------------------------------------------------------------------------------
# Saved plans: visibility, create, update with optimistic locking, share


class PlanVersionConflict(Exception):
    """An update of a plan based on a version that is no longer current; nothing was changed."""

    def __init__(self, current: Plan):
        super().__init__(f"plan {current.pk} is at version {current.version}")
        self.current = current


def plans_visible_to(user) -> QuerySet:
    """Plans a user may read: their own and those shared with them."""
    if user is None or not user.is_authenticated:
        return Plan.objects.none()
    return Plan.objects.filter(Q(owner=user) | Q(shared_with=user)).distinct()


def plan_check(*, body: dict, owner) -> None:
    """What the serializer cannot check: saved designs visible to the owner, and what each phase retires
    names a design added before it (SpecError naming the field)."""
    _entries(body, owner, evaluate=False)


def plan_create(*, owner, name: str, body: dict) -> Plan:
    plan_check(body=body, owner=owner)
    return Plan.objects.create(owner=owner, name=name or "Untitled plan", body=body)


@transaction.atomic
def plan_update(*, plan: Plan, based_on_version: int, name: str | None = None, body: dict | None = None) -> Plan:
    """Change a plan's name and/or body if it is still at `based_on_version`; else PlanVersionConflict."""
    fields: dict = {"version": F("version") + 1, "updated_at": timezone.now()}
    if name is not None:
        fields["name"] = name
    if body is not None:
        plan_check(body=body, owner=plan.owner)
        fields["body"] = body
    changed = Plan.objects.filter(pk=plan.pk, version=based_on_version).update(**fields)
    current = Plan.objects.get(pk=plan.pk)
    if not changed:
        raise PlanVersionConflict(current)
    return current


def plan_delete(*, plan: Plan) -> None:
    plan.delete()


def plan_share(*, plan: Plan, usernames: list[str] | None = None, link: bool | None = None) -> Plan:
    """Share read-only with these users (replacing the list) and/or switch the secret link on or off."""
    return share_with(plan, usernames=usernames, link=link)


# ---------------------------------------------------------------------------------------------------------------
# The timeline


def plan_settings(body: dict) -> dict:
    """The plan's settings with the defaults filled in (None: from each design's price list)."""
    given = body.get("settings") or {}
    return {key: given.get(key, default) if given.get(key) is not None else default for key, default in SETTINGS_DEFAULTS.items()}


def _years(body: dict, settings: dict) -> list[int]:
    start = int(body["start_year"])
    return list(range(start, start + int(settings["horizon_years"])))


def demand_per_year(body: dict, years: list[int]) -> list[dict]:
    """Demand each year: usable PiB (growth compounding from the start year, or the table interpolated
    linearly between its years and held flat beyond them) and read/write GB/s (job slots x MB/s per job /
    1000, or clients x GB/s per client, growing by the throughput's own yearly rate)."""
    demand = body["demand"]
    start = int(body["start_year"])
    if demand.get("years"):
        table = sorted((int(r["year"]), float(r["usable_pib"])) for r in demand["years"])
    else:
        table = None
    tp = demand.get("throughput") or {}
    if "job_slots" in tp:
        read0 = tp["job_slots"] * tp.get("read_mbps_per_job", 0.0) / 1000.0
        write0 = tp["job_slots"] * tp.get("write_mbps_per_job", 0.0) / 1000.0
    elif "clients" in tp:
        read0 = tp["clients"] * tp.get("read_gbps_per_client", 0.0)
        write0 = tp["clients"] * tp.get("write_gbps_per_client", 0.0)
    else:
        read0 = write0 = 0.0
    tp_growth = float(tp.get("growth_per_year", 0.0))
    rows = []
    for year in years:
        if table is None:
            pib = float(demand["usable_pib"]) * (1.0 + float(demand.get("growth_per_year", 0.0))) ** (year - start)
        else:
            pib = _interpolate(table, year)
        factor = (1.0 + tp_growth) ** (year - start)
        rows.append({"year": year, "usable_pib": pib, "read_gbps": read0 * factor, "write_gbps": write0 * factor})
    return rows


def _interpolate(table: list[tuple[int, float]], year: int) -> float:
    if year <= table[0][0]:
        return table[0][1]
    for (y0, v0), (y1, v1) in zip(table, table[1:], strict=False):
        if y0 <= year <= y1:
            return v0 + (v1 - v0) * (year - y0) / (y1 - y0)
    return table[-1][1]


def _entries(body: dict, owner, *, evaluate: bool = True, snapshot=None) -> list[dict]:
    """Every design a phase adds, with its label, years and (when `evaluate`) its figures. SpecError names
    the field of a design not visible to the owner, a spec that does not evaluate, or a retire naming
    nothing added before that phase."""
    errors: dict = {}
    phases = body.get("phases") or []
    ids = {a["design"] for p in phases for a in p.get("add") or [] if a.get("design") is not None}
    saved = {d.pk: d for d in designs_visible_to(owner).select_related("owner").filter(pk__in=ids)} if ids else {}
    if evaluate and snapshot is None:
        snapshot = catalogue_snapshot(user=owner)
    entries: list[dict] = []
    labels: set[str] = set()
    for index, phase in sorted(enumerate(phases), key=lambda p: (int(p[1]["year"]), p[0])):  # in year order
        year = int(phase["year"])
        for ref in phase.get("retire") or []:
            found = [e for e in entries if (isinstance(ref, int) and e["design_id"] == ref) or e["label"] == str(ref)]
            if not found:
                errors.setdefault("phases", {}).setdefault(str(index), {}).setdefault("retire", []).append(
                    f"'{str(ref)[:60]}' names no design added by an earlier phase (give its label or saved design id)"
                )
            for e in found:
                e["retire_year"] = min(e["retire_year"], year)
        for j, add in enumerate(phase.get("add") or []):
            where = ("phases", str(index), "add", str(j))
            design, spec, prices, design_owner = None, add.get("spec"), None, owner
            if add.get("design") is not None:
                design = saved.get(add["design"])
                if design is None:
                    _put(errors, where + ("design",), f"no saved design {add['design']} visible to you")
                    continue
                spec, prices, design_owner = design.spec, design.prices or None, design.owner
            name = add.get("label") or (design.name if design else (spec or {}).get("name")) or f"Phase {index + 1} design {j + 1}"
            label, n = name[:100], 2
            while label in labels:
                label, n = f"{name[:95]} #{n}", n + 1
            labels.add(label)
            entry = {
                "label": label,
                "phase": index,
                "added": year,
                "design_id": design.pk if design else None,
                "end_of_support_years": phase.get("end_of_support_years"),
                "retire_year": 10**6,
                "spec": spec,
            }
            if not evaluate and design is None:
                try:
                    design_resolve(spec=normalise_spec(spec), user=owner)
                except SpecError as exc:
                    _put(errors, where + ("spec",), exc.errors)
            if evaluate:
                try:
                    ev = design_evaluate(spec=spec, prices=prices, user=design_owner, snapshot=snapshot if design_owner == owner else None)
                except SpecError as exc:
                    _put(errors, where + ("spec" if design is None else "design",), exc.errors if design is None else "no longer evaluates")
                    continue
                entry.update(_figures(ev))
                if design is not None:
                    entry["name"] = design.name
                elif not (spec or {}).get("name"):
                    entry["name"] = INLINE_NAME  # not "Untitled design": it is the phase's own, never saved
            entries.append(entry)
    if errors:
        raise SpecError(errors)
    return entries


INLINE_NAME = "Inline design (not saved)"
"""The name shown for a phase's inline DesignSpec that gives none."""


def _put(errors: dict, path: tuple, message) -> None:
    node = errors
    for key in path[:-1]:
        node = node.setdefault(key, {})
    if isinstance(message, dict):
        node[path[-1]] = message
    else:
        node.setdefault(path[-1], []).append(message)


def _figures(ev) -> dict:
    """What the plan needs of one evaluated design: capacity, throughput, hardware price split into disks
    and the rest (the two price trends), servers, power, rack units, and its price list's running costs."""
    price = ev.price
    disks = sum(line["total"] for line in price["lines"] if line["kind"] == "disk")
    balance = ev.ost_balance
    osts = ev.counts.get("osts", 0)
    if balance is not None:  # OSTs of several sizes within the design itself
        ost_tib = (balance["ost_tib_smallest"], balance["ost_tib_largest"])
        once_full = (balance["read_gbps_once_smaller_full"], balance["write_gbps_once_smaller_full"])
    else:
        size = ev.usable_tib / osts if osts else 0.0
        ost_tib, once_full = (size, size), (ev.read_gbps, ev.write_gbps)
    servers = ev.counts.get("servers", 0)
    years = price.get("years") or 1
    return {
        "name": ev.name,
        "usable_pib": ev.usable_pib,
        "read_gbps": ev.read_gbps,
        "write_gbps": ev.write_gbps,
        "hardware_disks": disks,
        "hardware_other": price["hardware"] - disks,
        "servers": servers,
        "power_w": ev.power_w,
        "units_used": ev.units_used,
        "currency": price["currency"],
        "price_list": price["price_list"],
        "list_support_per_server_year": price["support"] / (servers * years) if servers else 0.0,
        "list_energy_price_per_kwh": price["energy_price_per_kwh"],
        "list_pue": price["pue"],
        "list_service_years": years,
        "ost_tib": ost_tib,
        "once_full_gbps": once_full,
    }


def _entry_costs(entry: dict, settings: dict, start: int) -> dict:
    """One design's capex (at its year, price trends applied from the start year) and yearly running costs."""
    age = entry["added"] - start
    capex = (
        entry["hardware_disks"] * (1.0 + settings["price_trend_per_tb"]) ** age
        + entry["hardware_other"] * (1.0 + settings["price_trend_per_server"]) ** age
    )
    support_rate = settings["support_per_server_year"]
    if support_rate is None:
        support_rate = entry["list_support_per_server_year"]
    energy_price = settings["energy_price_per_kwh"] if settings["energy_price_per_kwh"] is not None else entry["list_energy_price_per_kwh"]
    pue = settings["pue"] if settings["pue"] is not None else entry["list_pue"]
    return {
        "capex": capex,
        "support": entry["servers"] * support_rate,
        "energy": entry["power_w"] / 1000.0 * HOURS_PER_YEAR * pue * energy_price,
        "space": entry["units_used"] * settings["rack_cost_per_u_year"],
    }


def _service_end(entry: dict, settings: dict) -> int:
    """The first year a design is no longer in service."""
    eos = entry["end_of_support_years"] or settings["end_of_support_years"] or entry["list_service_years"]
    return min(entry["retire_year"], entry["added"] + int(eos))


def _supply(entries: list[dict], settings: dict, years: list[int], start: int) -> list[dict]:
    """Per year: the designs in service, their summed capacity and throughput (mixed generations add up),
    and the costs of that year (capex of the designs added that year, running costs of those in service)."""
    rows = []
    for year in years:
        row = {"year": year, "usable_pib": 0.0, "read_gbps": 0.0, "write_gbps": 0.0, "in_service": [], "added": [], "retired": []}
        costs = {"capex": 0.0, "support": 0.0, "energy": 0.0, "space": 0.0}
        for e in entries:
            end = _service_end(e, settings)
            c = _entry_costs(e, settings, start)
            if e["added"] == year:
                row["added"].append(e["label"])
                costs["capex"] += c["capex"]
            if end == year:
                row["retired"].append(e["label"])
            if e["added"] <= year < end:
                row["in_service"].append(e["label"])
                row["usable_pib"] += e["usable_pib"]
                row["read_gbps"] += e["read_gbps"]
                row["write_gbps"] += e["write_gbps"]
                for key in ("support", "energy", "space"):
                    costs[key] += c[key]
        costs["total"] = sum(costs.values())
        row["costs"] = costs
        row["ost_balance"] = ost_balance_in_service([e for e in entries if e["added"] <= year < _service_end(e, settings)])
        rows.append(row)
    return rows


def ost_balance_in_service(entries: list[dict]) -> dict | None:
    """Mixed generations in one file system: when the OSTs of the designs in service differ in size by more
    than Lustre's round-robin threshold (17 %, `planner.engine.reliability.OST_SPREAD_THRESHOLD`), the
    allocator weights new objects by free space and the smaller OSTs fill first; from then on only the
    designs holding the largest OSTs take new data, at their own read/write GB/s. None when even."""
    from planner.engine.reliability import OST_SPREAD_THRESHOLD

    sized = [e for e in entries if e["ost_tib"][0] > 0]
    if not sized:
        return None
    smallest = min(e["ost_tib"][0] for e in sized)
    largest = max(e["ost_tib"][1] for e in sized)
    spread = largest / smallest - 1.0
    if spread <= OST_SPREAD_THRESHOLD:
        return None
    big = [e for e in sized if e["ost_tib"][1] >= largest / (1.0 + OST_SPREAD_THRESHOLD)]
    return {
        "ost_tib_smallest": round(smallest, 2),
        "ost_tib_largest": round(largest, 2),
        "spread": round(spread, 3),
        "largest": [e["label"] for e in big],
        "read_gbps_once_smaller_full": _r(sum(e["once_full_gbps"][0] for e in big)),
        "write_gbps_once_smaller_full": _r(sum(e["once_full_gbps"][1] for e in big)),
    }


FIGURES = (("capacity", "usable_pib"), ("read", "read_gbps"), ("write", "write_gbps"))
TOLERANCE = 1e-9


def _shortfalls(supply: list[dict], demand: list[dict]) -> list[dict]:
    return [
        {name: max(0.0, d[key] - s[key]) if d[key] - s[key] > TOLERANCE * max(1.0, d[key]) else 0.0 for name, key in FIGURES}
        for s, d in zip(supply, demand, strict=True)
    ]


def run_outs(supply: list[dict], demand: list[dict]) -> dict:
    """The first year each of capacity, read and write falls short of demand (None: never within the horizon)."""
    shortfalls = _shortfalls(supply, demand)
    return {
        name: next((row["year"] for row, short in zip(supply, shortfalls, strict=True) if short[name] > 0), None) for name, _ in FIGURES
    }


def plan_timeline(*, plan: Plan | None = None, body: dict | None = None, owner=None) -> dict:
    """The computed plan: per year demand and supply (usable PiB, read/write GB/s), shortfalls and costs
    (capex, support, energy, rack space); the first year each runs out; totals and cost per usable
    PiB-year; and, where supply falls short, the solver's cheapest purchase (a proposal, not applied)."""
    if plan is not None:
        body, owner = plan.body, plan.owner
    settings = plan_settings(body)
    years = _years(body, settings)
    start = years[0]
    snapshot = catalogue_snapshot(user=owner)
    phases = body.get("phases") or []
    cost = sum(budget.evaluate_cost(a["spec"]) if a.get("spec") else budget.DESIGN_COST for p in phases for a in p.get("add") or [])
    budget.check(cost, owner, field="phases", what="evaluating every design of this plan", advice="plan fewer or smaller purchases")
    entries = _entries(body, owner, snapshot=snapshot)
    demand = demand_per_year(body, years)
    supply = _supply(entries, settings, years, start)
    warnings = []
    currencies = sorted({e["currency"] for e in entries})
    if len(currencies) > 1:
        warnings.append(f"The designs are priced in different currencies ({', '.join(currencies)}); the sums add numbers, not money.")
    late = [e["label"] for e in entries if e["added"] > years[-1]]
    if late:
        warnings.append(f"Added after the horizon ({years[-1]}), not counted: {', '.join(late)}.")
    for s in supply:
        balance = s["ost_balance"]
        if balance is not None:
            warnings.append(
                f"From {s['year']}, OSTs of {balance['ost_tib_smallest']:g} to {balance['ost_tib_largest']:g} TiB share the file system "
                f"(they differ by {balance['spread']:.0%}): Lustre's allocator weights new objects by free space, so the smaller OSTs "
                f"fill first; once they are full only {', '.join(balance['largest'])} take new data, at "
                f"{balance['read_gbps_once_smaller_full']:,.1f} GB/s read and {balance['write_gbps_once_smaller_full']:,.1f} GB/s write "
                f"instead of {s['read_gbps']:,.1f} and {s['write_gbps']:,.1f} GB/s."
            )
            break
    proposals = _proposals(body, owner, entries, settings, years, demand, cost, snapshot, warnings) if settings["propose"] else []
    table = []
    for d, s, short in zip(demand, supply, _shortfalls(supply, demand), strict=True):
        table.append(
            {
                "year": s["year"],
                "demand": {k: _r(d[k]) for _, k in FIGURES},
                "supply": {k: _r(s[k]) for _, k in FIGURES},
                "shortfall": {k: _r(v) for k, v in short.items()},
                "short": {k: v > 0 for k, v in short.items()},
                "in_service": s["in_service"],
                "added": s["added"],
                "retired": s["retired"],
                "costs": {k: round(v, 2) for k, v in s["costs"].items()},
                "ost_balance": s["ost_balance"],
            }
        )
    totals = {k: round(sum(s["costs"][k] for s in supply), 2) for k in ("capex", "support", "energy", "space", "total")}
    pib_years = sum(s["usable_pib"] for s in supply)
    return {
        "start_year": start,
        "years": years,
        "currency": currencies[0] if currencies else None,
        "settings": settings,
        "settings_sources": SETTINGS_SOURCES,
        "rows": table,
        "run_out": run_outs(supply, demand),
        "totals": {
            **totals,
            "usable_pib_years": _r(pib_years),
            "per_usable_pib_year": round(totals["total"] / pib_years, 2) if pib_years else None,
        },
        "designs": [_entry_out(e, settings, start) for e in entries],
        "proposals": proposals,
        "warnings": warnings,
        "assumptions": [
            f"A year of service is {HOURS_PER_YEAR:g} hours; energy = power x hours x PUE x price per kWh.",
            "Capex is counted in the year a design is added, with the price trends applied from the start year's prices.",
            "Supply is the sum over the designs in service: capacity and throughput of different generations add up "
            "(a file system's clients reach every OSS).",
        ],
    }


def _r(value: float) -> float:
    return round(value, 4)


def _entry_out(e: dict, settings: dict, start: int) -> dict:
    costs = _entry_costs(e, settings, start)
    return {
        "label": e["label"],
        "design": e["design_id"],
        "name": e["name"],
        "phase": e["phase"],
        "added": e["added"],
        "in_service_until": _service_end(e, settings) - 1,
        "usable_pib": _r(e["usable_pib"]),
        "read_gbps": _r(e["read_gbps"]),
        "write_gbps": _r(e["write_gbps"]),
        "servers": e["servers"],
        "units_used": e["units_used"],
        "power_w": round(e["power_w"], 1),
        "capex": round(costs["capex"], 2),
        "support_per_year": round(costs["support"], 2),
        "energy_per_year": round(costs["energy"], 2),
        "space_per_year": round(costs["space"], 2),
        "currency": e["currency"],
    }


def _proposals(body, owner, entries, settings, years, demand, spent, snapshot, warnings) -> list[dict]:
    """Where supply falls short, the solver's cheapest design covering the largest shortfall of that year and the
    next (`proposal_covers_years` in all; designs already planned may retire meanwhile). Proposals are
    made in year order, each counted as bought when looking for the next shortfall (so they do not repeat
    one another), at most MAX_PROPOSALS, within the caller's work limit."""
    from .solve import design_solve, estimated_search

    start = years[0]
    price_list = next((e["price_list"] for e in entries), "illustrative")
    bought: list[dict] = []
    proposals: list[dict] = []
    left = budget.limit(owner) - spent
    while len(proposals) < MAX_PROPOSALS:
        supply = _supply(entries + bought, settings, years, start)
        shortfalls = _shortfalls(supply, demand)
        first = next((i for i, sh in enumerate(shortfalls) if any(sh.values())), None)
        if first is None:
            break
        year, short = years[first], shortfalls[first]
        window = shortfalls[first : first + int(settings["proposal_covers_years"])]
        covers = {name: max(sh[name] for sh in window) for name, _ in FIGURES}
        through = years[min(first + len(window), len(years)) - 1]  # the last year the purchase is sized for
        targets = {key: round(covers[name] * 1.0001, 6) for name, key in FIGURES if covers[name] > 0}
        request = {"targets": targets, "metadata": {"placement": "none"}, "price_list": price_list, "limit": 1}
        cost = budget.solve_cost(**estimated_search(request))
        if cost > left:
            warnings.append(f"No purchase proposed for {year} and later: the searches would pass the work limit of one request.")
            break
        left -= cost
        answer = design_solve(request=request, user=owner)
        if not answer["feasible"] or not answer["results"]:
            proposals.append(
                {
                    "year": year,
                    "shortfall": {k: _r(v) for k, v in short.items()},
                    "covers": {k: _r(v) for k, v in covers.items()},
                    "covers_through": through,
                    "feasible": False,
                    "unmet": answer["unmet"],
                }
            )
            break
        best = answer["results"][0]
        ev = design_evaluate(spec=best["spec"], user=owner, snapshot=snapshot)
        entry = {
            "label": f"Proposed {year}",
            "phase": None,
            "added": year,
            "design_id": None,
            "end_of_support_years": None,
            "retire_year": 10**6,
            "spec": best["spec"],
            **_figures(ev),
        }
        bought.append(entry)
        out = _entry_out(entry, settings, start)
        proposals.append(
            {
                "year": year,
                "shortfall": {k: _r(v) for k, v in short.items()},
                "covers": {k: _r(v) for k, v in covers.items()},
                "covers_through": through,
                "feasible": True,
                "name": best["name"],
                "spec": best["spec"],
                "usable_pib": out["usable_pib"],
                "read_gbps": out["read_gbps"],
                "write_gbps": out["write_gbps"],
                "capex": out["capex"],
                "currency": out["currency"],
                "solver_price": best["price"],
            }
        )
    return proposals


def plan_sheet(*, plan: Plan) -> bytes:
    """The plan sheet (PDF, A4): run-out years, totals, the three charts, the year-by-year table, the
    purchases and proposals, the settings with their sources. Rendered synchronously: a plan's sheet is
    a few pages (measured: see README, Plans)."""
    from django.template.loader import render_to_string

    from planner.rendering import plan_sheet as charts
    from planner.rendering import sheet

    timeline = plan_timeline(plan=plan)
    last = timeline["years"][-1]
    context = {
        **timeline,
        "name": plan.name,
        "version": plan.version,
        "owner": plan.owner.username,
        "generated_at": timezone.now().strftime("%Y-%m-%d %H:%M UTC"),
        "first_year": timeline["years"][0],
        "last_year": last,
        "run_out_text": {k: str(v) if v is not None else f"not by {last}" for k, v in timeline["run_out"].items()},
        "running": timeline["totals"]["energy"] + timeline["totals"]["space"],
        "settings": [(k, v, SETTINGS_SOURCES[k]) for k, v in timeline["settings"].items()],
        "capacity_uri": sheet.svg_data_uri(charts.capacity_chart_svg(timeline)),
        "throughput_uri": sheet.svg_data_uri(charts.throughput_chart_svg(timeline)),
        "cost_uri": sheet.svg_data_uri(charts.cost_chart_svg(timeline)),
    }
    return sheet.render_pdf(render_to_string("planner/plan_sheet.html", context))
