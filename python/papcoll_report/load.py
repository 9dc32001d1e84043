"""Reading and checking a report file (format "papcoll-report", docs/report-format.md)."""
import json


class ReportError(Exception):
    """The file is not a papcoll report this version of papcoll-report can read."""


def load_report(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError("cannot read %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise ReportError("%s is not JSON: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != "papcoll-report":
        raise ReportError("%s is not a papcoll report (no \"format\": \"papcoll-report\")" % path)
    if doc.get("version") != 1:
        raise ReportError("%s has report format version %r; this papcoll-report reads version 1"
                          % (path, doc.get("version")))
    if not isinstance(doc.get("communicators"), list):
        raise ReportError("%s has no list of communicators" % path)
    return doc


def pick_communicator(doc, comm_id=None):
    """The communicator with the given id, else the first (the largest: the report lists the
    communicator with the most ranks first)."""
    comms = doc["communicators"]
    if not comms:
        return None
    if comm_id is None:
        return comms[0]
    for c in comms:
        if str(c.get("id")) == str(comm_id) or c.get("name") == comm_id:
            return c
    raise ReportError("no communicator %r in the report (ids: %s)"
                      % (comm_id, ", ".join(str(c.get("id")) for c in comms)))
