"""The text summary: per communicator, the top stragglers and what papcoll did about them."""
import math

REASON_WORDS = {
    "named": "named by the program",
    "rule": "auto's fixed rule",
    "no_pattern": "auto: no arrival pattern",
    "balanced": "auto: arrivals balanced",
    "small_gain": "auto: predicted gain too small",
    "aware": "auto: predicted gain",
    "refused": "refused",
}


def seconds(x):
    """A time in s, ms or us, 3 significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    if a >= 1:
        return "%.3g s" % x
    if a >= 1e-3:
        return "%.3g ms" % (x * 1e3)
    return "%.3g us" % (x * 1e6)


def size(b):
    if b is None or b < 0:
        return "any size"
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n:
            return "%.3g %s" % (b / n, unit)
    return "%d B" % b


def percent(x):
    return "-" if x is None else "%.0f %%" % (100.0 * x)


def comm_title(c):
    name = c.get("name") or "communicator %s" % c.get("id")
    return "%s (%d ranks)" % (name, c.get("size", 0))


def key_line(k):
    op = k["operation"]
    root = "" if k.get("root", -1) < 0 else ", root %d" % k["root"]
    ran = ", ".join("%s %d" % (a, n) for a, n in sorted(k.get("algorithms", {}).items(),
                                                         key=lambda x: -x[1]))
    why = []
    for r, n in sorted(k.get("reasons", {}).items(), key=lambda x: -x[1]):
        w = REASON_WORDS.get(r, r)
        if r in ("aware", "small_gain") and k.get("auto_predicted_gain") is not None:
            w += " %s" % percent(k["auto_predicted_gain"])
        why.append("%s %d" % (w, n))
    line = "%s, %s%s: %d calls, %s per call; ran %s (%s)" % (
        op, size(k.get("bytes")), root, k["calls"], seconds(k.get("time_in_collective_mean_s")),
        ran or "-", "; ".join(why) or "-")
    if k.get("refusals"):
        line += "; %d refused" % k["refusals"]
    pred = k.get("prediction", {})
    if pred.get("calls"):
        line += "; arrival prediction off by %s on average (spread %s)" % (
            seconds(pred.get("mean_abs_error_s")), seconds(pred.get("mean_spread_s")))
    return line


def summary_text(doc, top=5, comm_id=None):
    from .load import pick_communicator
    out = []
    hosts = sorted({r.get("host", "") for r in doc.get("ranks", [])})
    out.append("papcoll report (format %s): %d processes on %d host%s, %s, written %s" % (
        doc.get("version"), doc.get("world_size", 0), len(hosts), "" if len(hosts) == 1 else "s",
        doc.get("mpi_library", "?"), doc.get("created", "?")))
    comms = doc["communicators"] if comm_id is None else [pick_communicator(doc, comm_id)]
    if not comms:
        out.append("no collective was recorded")
    for c in comms:
        total = c.get("time_in_collectives_s", 0.0)
        wait = c.get("wait_total_s", 0.0)
        out.append("")
        out.append("%s: %d calls, %s in collectives (summed over ranks), %s of it waiting for "
                   "later ranks (%s)" % (comm_title(c), c.get("calls", 0), seconds(total),
                                         seconds(wait), percent(wait / total) if total > 0
                                         else "-"))
        ranks = c.get("ranks", [])
        order = c.get("stragglers", [])[:max(0, top)]
        if ranks and order and ranks[order[0]]["lateness_s"]["mean"] is not None:
            out.append("  top stragglers (lateness: time after the earliest rank of each call):")
            out.append("    %-6s %-16s %-10s %-10s %-10s %-10s %-8s %s" % (
                "rank", "host", "mean", "median", "p95", "max", "last in", "waited (total)"))
            for r in order:
                s = ranks[r]
                lat = s["lateness_s"]
                out.append("    %-6s %-16s %-10s %-10s %-10s %-10s %-8s %s" % (
                    r, (s.get("host") or "?")[:16], seconds(lat["mean"]), seconds(lat["median"]),
                    seconds(lat["p95"]), seconds(lat["max"]), percent(s.get("last_share")),
                    seconds(s.get("wait_total_s"))))
        else:
            out.append("  no lateness: no call was logged by every rank")
        out.append("  what papcoll did:")
        for k in c.get("keys", []):
            out.append("    " + key_line(k))
    return "\n".join(out) + "\n"
