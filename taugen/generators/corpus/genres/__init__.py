"""Built-in genres. Importing this package registers each of them."""

from importlib import import_module

_BUILT_IN = ("email_thread", "support_transcript", "call_recording", "spreadsheet", "flowchart", "pdf_document",
             "meeting_transcript", "reference_table", "channel_export", "issue_tracker_export", "case_ledger_export",
             "knowledge_base_archive", "web_screenshot", "decision_register")

for _module in _BUILT_IN:
    try:
        import_module(f"{__name__}.{_module}")
    except ModuleNotFoundError as _exc:  # a genre module not written yet
        if _exc.name != f"{__name__}.{_module}":
            raise
