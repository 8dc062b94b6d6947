"""The data layer: registry, checksums, clear failures, loader shapes and dtypes."""
import gzip
import shutil
from pathlib import Path

import pandas as pd
import pytest

import ldp.data as D
from ldp.data import loaders

VENDORED = Path(__file__).resolve().parents[1] / "data"


def test_registry_entries_are_complete():
    for name, ds in D.DATASETS.items():
        assert ds.name == name
        assert ds.files and ds.rows > 0 and ds.source and ds.licence and ds.papers
        for f in ds.files:
            assert len(f.sha256) == 64 and int(f.sha256, 16) >= 0


def test_every_registered_dataset_has_a_provenance_row():
    readme = (loaders.REPO_ROOT / "data" / "README.md").read_text()
    for ds in D.DATASETS.values():
        for f in ds.files:
            assert f.name in readme, f"data/README.md has no provenance row for {f.name}"


def test_vendored_files_are_registered():
    """Every data file tracked in data/ belongs to a registered dataset (no data without provenance)."""
    registered = {f.name for ds in D.DATASETS.values() for f in ds.files} | {"adult.names.gz"}
    for path in (loaders.REPO_ROOT / "data").iterdir():
        if path.is_file() and path.name != "README.md":
            assert path.name in registered, f"{path.name} in data/ is not in the registry"


def test_unknown_dataset_names_the_dataset_and_what_to_do():
    with pytest.raises(D.DatasetUnavailable, match=r"no-such-dataset.*Known datasets: .*adult.*register it"):
        D.load("no-such-dataset")


def test_non_string_name_is_a_type_error():
    with pytest.raises(TypeError, match="name must be a string"):
        D.load(3)


def test_adult_is_vendored_and_loads_with_expected_shape_and_dtypes():
    frame = D.load("adult")
    assert frame.shape == (48_842, 16)
    assert (frame["split"] == "train").sum() == 32_561
    assert len(frame.dropna()) == 45_222
    assert set(frame["income"].cat.categories) == {"<=50K", ">50K"}
    assert frame["age"].dtype.kind == "i" and isinstance(frame["sex"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("name", sorted(set(D.DATASETS) - {"adult"}))
def test_external_datasets_load_when_present(name):
    if not D.is_available(name):
        pytest.skip(f"{name} not in any data directory (run `make data`)")
    frame = D.load(name)
    assert len(frame) == D.DATASETS[name].rows
    if name == "retail":
        assert isinstance(frame["basket"].iloc[0], tuple)
    if name == "nursery":
        assert list(frame.columns)[-1] == "classification"


@pytest.fixture
def isolated_data(tmp_path, monkeypatch):
    """Point the loader at an empty temporary repository layout plus LDP_DATA_DIR."""
    root = tmp_path / "repo"
    (root / "data" / "external").mkdir(parents=True)
    monkeypatch.setattr(loaders, "REPO_ROOT", root)
    ext = tmp_path / "envdir"
    ext.mkdir()
    monkeypatch.setenv("LDP_DATA_DIR", str(ext))
    loaders._VERIFIED.clear()
    return root, ext


def test_missing_file_message_says_where_to_put_it(isolated_data):
    with pytest.raises(D.DatasetUnavailable) as info:
        D.load("nursery")
    msg = str(info.value)
    assert "'nursery'" in msg and "nursery.data.gz" in msg and "make data" in msg and "data/external" in msg
    assert not isinstance(info.value, D.DatasetCorrupted)


def test_corrupted_file_is_refused_with_instructions(isolated_data):
    root, ext = isolated_data
    good = gzip.decompress((VENDORED / "adult.data.gz").read_bytes())
    (ext / "adult.data").write_bytes(good[:-10] + b"corrupted!")
    shutil.copyfile(VENDORED / "adult.test.gz", ext / "adult.test.gz")
    with pytest.raises(D.DatasetCorrupted, match=r"'adult'.*checksum mismatch.*make data"):
        D.load("adult")


def test_plain_and_gzipped_copies_verify_the_same(isolated_data):
    root, ext = isolated_data
    src = VENDORED
    (ext / "adult.data").write_bytes(gzip.decompress((src / "adult.data.gz").read_bytes()))
    shutil.copyfile(src / "adult.test.gz", root / "data" / "external" / "adult.test.gz")
    assert D.load("adult").shape == (48_842, 16)


def test_load_or_standin_falls_back_visibly(isolated_data):
    def standin():
        """A tiny synthetic nursery-like table."""
        return pd.DataFrame({"a": [1, 2]})
    frame, source = D.load_or_standin("nursery", standin)
    assert not source.real and len(frame) == 2
    assert "Stand-in" in source._repr_html_() and "tiny synthetic" in source.message()


def test_load_or_standin_does_not_hide_corruption(isolated_data):
    root, ext = isolated_data
    (ext / "nursery.data").write_bytes(b"not the file")
    with pytest.raises(D.DatasetCorrupted):
        D.load_or_standin("nursery", lambda: pd.DataFrame())


def test_load_or_standin_uses_real_data_when_present():
    frame, source = D.load_or_standin("adult", lambda: pd.DataFrame())
    assert source.real and len(frame) == 48_842 and "Real data" in source._repr_html_()


def test_fetch_never_deletes_a_corrupted_vendored_file(isolated_data, monkeypatch, tmp_path, capsys):
    """`make data` may replace files in data/external/, but a bad copy in data/ is reported, not deleted."""
    import urllib.request

    from ldp.data import __main__ as fetcher

    root, _ = isolated_data
    bad = root / "data" / "adult.data"
    bad.write_bytes(b"not the adult file")
    monkeypatch.setenv("LDP_SHARED_DATASETS", str(tmp_path / "no-shared-folder"))
    monkeypatch.setattr(fetcher, "REPO_ROOT", root)

    def offline(*args, **kwargs):
        raise OSError("offline test")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    assert fetcher.fetch() == 0
    out = capsys.readouterr().out
    assert bad.read_bytes() == b"not the adult file"
    assert "not touching a file outside data/external/" in out and "[missing]" in out


def test_git_tracks_no_notebook_json_no_html_and_no_unregistered_data():
    import subprocess

    files = subprocess.run(["git", "ls-files"], cwd=VENDORED.parent, capture_output=True, text=True,
                           check=True).stdout.split()
    assert not [f for f in files if f.endswith((".ipynb", ".html"))]
    readme = (VENDORED / "README.md").read_text()
    data_files = [f for f in files if f.startswith("data/") and f != "data/README.md"]
    assert data_files, "the vendored Adult files should be tracked"
    for f in data_files:
        assert Path(f).name in readme, f"{f} is tracked but has no provenance row in data/README.md"
