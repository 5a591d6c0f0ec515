"""Services: the only code that touches both the ORM and the engine (HackSoft style:
keyword-only functions named <entity>_<action>). Front doors import from here."""

from planner.spec import SPEC_DEFAULTS, SpecError

from .brick_templates import (
    TemplateInUse,
    brick_template_copy,
    brick_template_create,
    brick_template_delete,
    brick_template_share,
    brick_template_update,
    brick_templates_visible_to,
)
from .calibrations import calibration_create, calibration_from_upload, calibrations_visible_to
from .designs import (
    DesignNotFound,
    VersionConflict,
    design_compare,
    design_create,
    design_delete,
    design_evaluation,
    design_reference,
    design_reference_price,
    design_reprice,
    design_share,
    design_update,
    designs_table,
    designs_visible_to,
    relative_to,
)
from .evaluation import brick_template_summaries, design_evaluate, design_resolve, metadata_cell_summaries, price_list_snapshot
from .examples import example_design, example_designs
from .exports import ExportError, export_fail, export_render, export_request, exports_visible_to
from .solve import design_solve, solve_request, solve_run
from .tokens import TokenLimit, token_authenticate, token_create, token_revoke

__all__ = [
    "TemplateInUse",
    "brick_template_copy",
    "brick_template_create",
    "brick_template_delete",
    "brick_template_share",
    "brick_template_update",
    "brick_templates_visible_to",
    "design_solve",
    "solve_request",
    "solve_run",
    "calibration_create",
    "calibration_from_upload",
    "calibrations_visible_to",
    "SPEC_DEFAULTS",
    "DesignNotFound",
    "SpecError",
    "TokenLimit",
    "VersionConflict",
    "brick_template_summaries",
    "metadata_cell_summaries",
    "design_compare",
    "design_create",
    "design_delete",
    "design_evaluate",
    "design_evaluation",
    "design_reprice",
    "design_resolve",
    "design_share",
    "design_update",
    "designs_visible_to",
    "designs_table",
    "design_reference",
    "design_reference_price",
    "relative_to",
    "example_design",
    "example_designs",
    "ExportError",
    "export_fail",
    "export_render",
    "export_request",
    "exports_visible_to",
    "price_list_snapshot",
    "token_authenticate",
    "token_create",
    "token_revoke",
]
