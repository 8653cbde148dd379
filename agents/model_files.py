"""Reading a model's files, which may come from anywhere: bounded in time and memory.

A model folder may hold a link to /dev/zero (which reads forever), a FIFO (whose open
blocks until someone writes), a device, or a file far larger than any model. Every file
of a model (agents/model_format.py, agents/rllib_agent.py) is read here: opened without
blocking, its target (links are followed) checked to be a regular file, its size capped
before a byte is read, and a safetensors file's header checked (tensor count, dtypes,
shapes, offsets) before the tensors are built. Anything else is a ModelFormatError
naming the file; a missing file is a ModelFileNotFoundError.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from suburbia_env.errors import ModelFileNotFoundError, ModelFormatError, shown

MAX_SAFETENSORS_HEADER_BYTES = 1_000_000
MAX_TENSORS = 4_096
MAX_TENSOR_DIMENSIONS = 8
SAFETENSORS_DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
                           "I16": 2, "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4,
                           "F32": 4, "I64": 8, "U64": 8, "F64": 8}

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_model_file(path: str | Path, limit: int, what: str,
                    expected_bytes: int | None = None) -> bytes:
    """The bytes of one file of a model, at most `limit` of them (`what` names the file in
    errors: "description", "weights file"). The file, or the target of a link, must be a
    regular file; with `expected_bytes` its size must be that (checked before reading)."""
    path = Path(path)
    link = " (a link to nothing)" if path.is_symlink() else ""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                             | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ModelFileNotFoundError(f"{path}: no such file{link} (a model is NAME.safetensors "
                                     f"with NAME.json beside it)") from None
    except (OSError, ValueError) as error:
        raise ModelFormatError(f"{path}: cannot open the {what} "
                               f"({getattr(error, 'strerror', None) or error})") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            target = f"a link to {_kind(info.st_mode)}" if link else _kind(info.st_mode)
            raise ModelFormatError(f"{path} is {target}, not a regular file: the model's "
                                   f"{what} is read only from a regular file")
        if info.st_size > limit:
            raise ModelFormatError(f"{path}: the {what} is {info.st_size} bytes, more than "
                                   f"{limit}")
        if expected_bytes is not None and info.st_size != expected_bytes:
            raise ModelFormatError(f"{path}: the {what} is {info.st_size} bytes, its "
                                   f"description says {expected_bytes} (a changed, truncated "
                                   f"or other model's file)")
    except BaseException:
        os.close(descriptor)
        raise
    with os.fdopen(descriptor, "rb", buffering=0) as stream:
        chunks, size = [], 0
        try:
            while size <= limit:
                chunk = stream.read(min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as error:
            raise ModelFormatError(f"{path}: cannot read the {what} "
                                   f"({error.strerror or error})") from None
    if size > limit:  # it grew while being read
        raise ModelFormatError(f"{path}: the {what} is more than {limit} bytes")
    return b"".join(chunks)


def check_safetensors_header(data: bytes, path: str | Path) -> dict:
    """The header of a safetensors file (tensor name -> dtype, shape, data_offsets), checked
    before any tensor is built: a bounded header and number of tensors, known dtypes,
    shapes whose bytes are exactly their offsets' span, offsets inside the file."""
    def fail(problem: str):
        raise ModelFormatError(f"{path}: not a readable safetensors file ({problem})")
    if len(data) < 8:
        fail(f"{len(data)} bytes, shorter than its header's length")
    header_bytes = int.from_bytes(data[:8], "little")
    if header_bytes > MAX_SAFETENSORS_HEADER_BYTES or 8 + header_bytes > len(data):
        fail(f"a header of {header_bytes} bytes in a file of {len(data)}")
    try:
        header = json.loads(data[8:8 + header_bytes].decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError) as error:
        fail(f"its header is not JSON: {type(error).__name__}")
    if not isinstance(header, dict):
        fail("its header is not a JSON object")
    tensors = {name: entry for name, entry in header.items() if name != "__metadata__"}
    if len(tensors) > MAX_TENSORS:
        fail(f"{len(tensors)} tensors, more than {MAX_TENSORS}")
    body = len(data) - 8 - header_bytes
    for name, entry in tensors.items():
        if not isinstance(entry, dict):
            fail(f"tensor {shown(name)} is not described by an object")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if dtype not in SAFETENSORS_DTYPE_BYTES:
            fail(f"tensor {shown(name)} has dtype {shown(dtype)}")
        if (not isinstance(shape, list) or len(shape) > MAX_TENSOR_DIMENSIONS
                or not all(isinstance(size, int) and not isinstance(size, bool) and size >= 0
                           for size in shape)):
            fail(f"tensor {shown(name)} has shape {shown(shape)}")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(offset, int) and not isinstance(offset, bool)
                           for offset in offsets)
                or not 0 <= offsets[0] <= offsets[1] <= body):
            fail(f"tensor {shown(name)} has data_offsets {shown(offsets)} outside the "
                 f"{body} bytes of data")
        needed = math.prod(shape) * SAFETENSORS_DTYPE_BYTES[dtype]
        if needed != offsets[1] - offsets[0]:
            fail(f"tensor {shown(name)} of shape {shown(shape)} needs {needed} bytes, its "
                 f"data_offsets span {offsets[1] - offsets[0]}")
    return tensors


def check_regular_file(path: str | Path, what: str) -> Path:
    """`path` if it is a regular file or a link to one; ModelFileNotFoundError if nothing
    is there, ModelFormatError for a FIFO, a device, a directory (nothing is opened)."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ModelFileNotFoundError(f"no {what} at {shown(str(path))}") from None
    except (OSError, ValueError) as error:  # a name too long, a NUL character, a loop
        raise ModelFormatError(f"no {what} can be at {shown(str(path))} "
                               f"({getattr(error, 'strerror', None) or error})") from None
    if not stat.S_ISREG(mode):
        link = "a link to " if path.is_symlink() else ""
        raise ModelFormatError(f"{shown(str(path))} is {link}{_kind(mode)}, not a regular "
                               f"file: a {what} is read only from a regular file")
    return path
