"""Writing results safely: recoursesim replaces only what it wrote, and nobody sees a half-written file.

Every command and every reproduction writes through this package:

* **claim** an output folder before any work: :func:`check_out` (``--out`` must be usable, and
  empty, or hold only what recoursesim wrote there), :func:`check_out_file` and
  :func:`check_replaceable_file` for a single output file, :func:`input_files` (a run's inputs,
  never removed), :func:`slug` (a default folder name a scenario cannot steer);
* **write** a folder with :func:`atomic_output_dir` (filled in a hidden working folder, moved into
  place when complete) or one file with :func:`replacing` / :func:`write_atomic` (a temporary file
  renamed over the target);
* **record** what was written: every results folder keeps a record of its files
  (:data:`RECORD`: path, size, SHA-256), appended by :func:`record_file` and
  :func:`write_recorded` right after each file is complete; a folder filled in place (a sweep, a
  study) is locked while written (:func:`exclusive`) and its files checked before they are written
  again (:func:`check_own_files`);
* **finish or replace**: :func:`atomic_output_dir` records the folder and the command that filled
  it and swaps it in; ``--overwrite`` (:func:`check_replaceable`) and a rerun of the same command
  replace only files recoursesim recorded and that nobody changed since.

The modules: :mod:`~recoursesim.output.atomic` (one file), :mod:`~recoursesim.output.record` (the
record), :mod:`~recoursesim.output.folder` (a results folder), :mod:`~recoursesim.output.options`
(the ``--out`` and ``--overwrite`` options).
"""

from recoursesim.output.atomic import remove_dead_writes, replacing, write_atomic
from recoursesim.output.folder import (
    GENERATOR_COMMENT,
    GENERATOR_METADATA,
    GENERATOR_TAG,
    atomic_output_dir,
    check_out,
    check_out_file,
    check_replaceable_file,
    input_files,
    rerun,
    slug,
    written_by_recoursesim,
)
from recoursesim.output.options import add_out_arguments, command_record, out_path
from recoursesim.output.record import (
    LOCK,
    RECORD,
    WORKING_MARK,
    check_folder,
    check_own_files,
    check_replaceable,
    exclusive,
    read,
    record_file,
    record_mutable,
    record_nested,
    verify,
    write_recorded,
)

__all__ = [
    "GENERATOR_COMMENT",
    "GENERATOR_METADATA",
    "GENERATOR_TAG",
    "LOCK",
    "RECORD",
    "WORKING_MARK",
    "add_out_arguments",
    "atomic_output_dir",
    "check_folder",
    "check_out",
    "check_out_file",
    "check_own_files",
    "check_replaceable",
    "check_replaceable_file",
    "command_record",
    "exclusive",
    "input_files",
    "out_path",
    "read",
    "record_file",
    "record_mutable",
    "record_nested",
    "remove_dead_writes",
    "replacing",
    "rerun",
    "slug",
    "verify",
    "write_atomic",
    "write_recorded",
    "written_by_recoursesim",
]
