"""papcoll-report: reads a papcoll straggler report (PAPCOLL_REPORT=FILE or papcoll.write_report,
docs/report-format.md), prints who was late and what papcoll did about it, and draws a PNG
(a heatmap of lateness per rank over call windows and the time lost to waiting).

    papcoll-report FILE [--png OUT] [--top N] [--comm ID]

Plain Python (json); matplotlib only for --png. It does not import papcoll (no MPI needed).
"""
from .load import load_report, ReportError  # noqa: F401
from .summary import summary_text  # noqa: F401

SUPPORTED_VERSIONS = (1,)
