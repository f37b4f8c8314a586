"""holdemjax.series.cache_files: the one way the host keeps cache files (issue 35 point 3: the
cache-file code was written twice, with two folder rules)."""

from __future__ import annotations

import os

import pytest

from holdemjax.series import cache_files, wasm_module, xla_cache

MAGIC = b"holdemjax-test-1\n"


def test_round_trip_and_every_bad_file_reads_as_missing(tmp_path):
    path = tmp_path / "a" / "b" / "entry.bin"
    assert cache_files.read(path, MAGIC) is None  # missing
    assert cache_files.write(path, MAGIC, b"payload \x00\xff")
    assert cache_files.read(path, MAGIC) == b"payload \x00\xff"
    assert cache_files.read(path, b"holdemjax-test-2\n") is None  # another kind or version
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 1
    path.write_bytes(bytes(blob))
    assert cache_files.read(path, MAGIC) is None  # damaged: the checksum keeps it out
    path.write_bytes(MAGIC[:5])
    assert cache_files.read(path, MAGIC) is None  # cut short
    assert [p.name for p in path.parent.iterdir()] == ["entry.bin"]  # no temporary files left


def test_an_unwritable_cache_is_skipped_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cache_files.write(blocker / "x.bin", MAGIC, b"p") is False
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            assert cache_files.write(ro / "x.bin", MAGIC, b"p") is False
            assert list(ro.iterdir()) == []
        finally:
            ro.chmod(0o700)


def test_a_write_replaces_the_entry_whole(tmp_path):
    path = tmp_path / "entry.bin"
    assert cache_files.write(path, MAGIC, b"first")
    assert cache_files.write(path, MAGIC, b"second, longer")
    assert cache_files.read(path, MAGIC) == b"second, longer"


@pytest.mark.parametrize("env, want", [
    ({"HOLDEMJAX_CACHE": "{tmp}/hj", "XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/hj"),
    ({"XDG_CACHE_HOME": "{tmp}/xdg"}, "{tmp}/xdg/holdemjax"),
    ({"HOME": "{tmp}/home"}, "{tmp}/home/.cache/holdemjax"),
])
def test_one_folder_rule_for_wasm_modules_and_xla_executables(tmp_path, monkeypatch, env, want):
    for name in ("HOLDEMJAX_CACHE", "XDG_CACHE_HOME", xla_cache.CACHE_ENV):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    root = cache_files.cache_root()
    assert str(root) == want.format(tmp=tmp_path)
    assert xla_cache.compile_cache_dir() == root / "xla"
    assert wasm_module.cache_path("ab" * 32).parent == root / "wasm"
