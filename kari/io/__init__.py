"""Reading and writing shared by every command: located input errors (:mod:`kari.io.text`), atomic outputs
(:mod:`kari.io.atomic`), locked run directories (:mod:`kari.io.lock`), a run directory's settings and log
(:mod:`kari.io.runlog`)."""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.io.atomic import (
        atomic_open, atomic_write_json, atomic_write_jsonl, atomic_write_text, check_output_dir, check_output_file,
        prepare_output_dir
    )
    from kari.io.lock import folder_lock, output_folder
    from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, append, check_settings, load_log
    from kari.io.text import BadJSON, decode_json, load_json, read_text

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.io.atomic": ("atomic_open", "atomic_write_json", "atomic_write_jsonl", "atomic_write_text",
                       "check_output_dir", "check_output_file", "prepare_output_dir"),
    "kari.io.lock": ("folder_lock", "output_folder"),
    "kari.io.runlog": ("CONFIG_FILE", "SUMMARY_FILE", "append", "check_settings", "load_log"),
    "kari.io.text": ("BadJSON", "decode_json", "load_json", "read_text"),
})
