"""The plan sheet's charts: supply against demand per year (capacity, throughput) and cost per year stacked,
drawn by matplotlib as SVG from a computed timeline (plain dicts in, SVG text out; no database access).
The HTML around them is planner/templates/planner/plan_sheet.html; `sheet.render_pdf` turns it into a PDF."""

from __future__ import annotations

import io

COST_PARTS = (
    ("capex", "Capex", "#4e79a7"),
    ("support", "Support", "#f28e2b"),
    ("energy", "Energy", "#59a14f"),
    ("space", "Rack space", "#b07aa1"),
)


def _figure(height: float = 2.6):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, height), dpi=100)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=7)
    return plt, fig, ax


def _svg(plt, fig) -> str:
    fig.tight_layout()
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight")  # legends below the axes stay in
    plt.close(fig)
    return out.getvalue()


def _legend_below(ax, columns: int) -> None:
    """The legend in one row under the years, where it cannot hide a bar or a line."""
    ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=columns)


def _mark_run_out(ax, year) -> None:
    if year is not None:
        ax.axvline(year, color="#d62728", linewidth=1, linestyle="--")
        ax.annotate(
            f"runs out {year}",
            (year, ax.get_ylim()[1]),
            fontsize=6.5,
            color="#d62728",
            ha="left",
            va="top",
            xytext=(2, -2),
            textcoords="offset points",
        )


def capacity_chart_svg(timeline: dict) -> str:
    """Usable PiB in service (bars) against demand (line) per year; the run-out year marked."""
    plt, fig, ax = _figure()
    years = [r["year"] for r in timeline["rows"]]
    ax.bar(years, [r["supply"]["usable_pib"] for r in timeline["rows"]], color="#9ecae9", label="Supply (in service)")
    ax.plot(years, [r["demand"]["usable_pib"] for r in timeline["rows"]], color="#1d2430", marker="o", markersize=3, label="Demand")
    ax.set_ylabel("Usable PiB", fontsize=8)
    ax.set_xticks(years)
    _legend_below(ax, 2)
    ax.set_title("Capacity: supply against demand", fontsize=8)
    _mark_run_out(ax, timeline["run_out"]["capacity"])
    return _svg(plt, fig)


def throughput_chart_svg(timeline: dict) -> str:
    """Read and write GB/s in service against demand per year."""
    plt, fig, ax = _figure()
    years = [r["year"] for r in timeline["rows"]]
    for op, colour in (("read", "#4e79a7"), ("write", "#f28e2b")):
        ax.plot(
            years,
            [r["supply"][f"{op}_gbps"] for r in timeline["rows"]],
            color=colour,
            marker="s",
            markersize=3,
            label=f"{op.title()} supply",
        )
        ax.plot(years, [r["demand"][f"{op}_gbps"] for r in timeline["rows"]], color=colour, linestyle=":", label=f"{op.title()} demand")
    ax.set_ylabel("GB/s", fontsize=8)
    ax.set_xticks(years)
    _legend_below(ax, 4)
    ax.set_title("Throughput: supply against demand", fontsize=8)
    ax.set_ylim(bottom=0)
    first = [y for y in (timeline["run_out"]["read"], timeline["run_out"]["write"]) if y is not None]
    _mark_run_out(ax, min(first) if first else None)
    return _svg(plt, fig)


def cost_chart_svg(timeline: dict) -> str:
    """Cost per year, stacked: capex, support, energy, rack space."""
    plt, fig, ax = _figure()
    years = [r["year"] for r in timeline["rows"]]
    bottom = [0.0] * len(years)
    for key, label, colour in COST_PARTS:
        values = [r["costs"][key] for r in timeline["rows"]]
        ax.bar(years, values, bottom=bottom, color=colour, label=label)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    from matplotlib.ticker import FuncFormatter

    ax.set_ylabel(f"{timeline.get('currency') or ''} a year".strip(), fontsize=8)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))  # 150,000, as the tables print it
    ax.set_xticks(years)
    _legend_below(ax, 4)
    ax.set_title("Cost per year", fontsize=8)
    return _svg(plt, fig)
