"""Reading and writing shared by every command: located input errors (:mod:`kari.io.text`), atomic outputs
(:mod:`kari.io.atomic`), locked run directories (:mod:`kari.io.lock`), a run directory's settings and log
(:mod:`kari.io.runlog`)."""

from kari.exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.io.atomic": ("atomic_open", "atomic_write_json", "atomic_write_jsonl", "atomic_write_text",
                       "check_output_dir", "check_output_file", "prepare_output_dir"),
    "kari.io.lock": ("folder_lock", "output_folder"),
    "kari.io.runlog": ("CONFIG_FILE", "SUMMARY_FILE", "append", "check_settings", "load_log"),
    "kari.io.text": ("BadJSON", "decode_json", "load_json", "read_text"),
})
