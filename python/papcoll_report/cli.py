"""papcoll-report FILE [--png OUT] [--top N] [--comm ID] (docs/report-format.md)."""
import argparse
import sys

from .load import ReportError, load_report
from .summary import summary_text


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="papcoll-report",
        description="Who is late in a papcoll straggler report (PAPCOLL_REPORT=FILE), and what "
                    "papcoll did about it.")
    ap.add_argument("report", help="the JSON file written by papcoll")
    ap.add_argument("--png", metavar="OUT", help="also draw the heatmap and waiting times to OUT")
    ap.add_argument("--top", type=int, default=5, metavar="N",
                    help="stragglers listed per communicator (default 5)")
    ap.add_argument("--comm", metavar="ID",
                    help="only this communicator (its id or name); default: all in the text, "
                         "the largest in the picture")
    a = ap.parse_args(argv)
    if a.top < 0:
        ap.error("--top must be >= 0")
    try:
        doc = load_report(a.report)
        sys.stdout.write(summary_text(doc, top=a.top, comm_id=a.comm))
        if a.png:
            try:
                from .plot import draw
            except ImportError as e:  # pragma: no cover
                raise ReportError("--png needs matplotlib and numpy (%s)" % e)
            try:
                draw(doc, a.png, comm_id=a.comm, top=a.top)
            except ImportError as e:
                raise ReportError("--png needs matplotlib (pip install matplotlib, or Debian's "
                                  "python3-matplotlib): %s" % e)
            print("picture: %s" % a.png)
    except ReportError as e:
        print("papcoll-report: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
