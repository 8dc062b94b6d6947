"""The data layer: registry, content checksums over every packaging, faults, fetch/status, stand-in boxes."""

import gzip
import io
import os
import re
import subprocess
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ldp.data as D
from ldp.data import __main__ as cli
from ldp.data import loaders
from ldp.data.registry import DATASETS, KNOWN_COPIES, NOT_PUBLIC, find_not_public

REPO = Path(__file__).resolve().parents[1]
VENDORED = loaders.PACKAGE_DATA
SHARED = cli.shared_dir()
needs_shared = pytest.mark.skipif(
    SHARED is None or not SHARED.is_dir(), reason="the shared datasets folder is not here (set LDP_SHARED_DATASETS)"
)


# ---------------------------------------------------------------------------- registry and provenance
def test_registry_entries_are_complete():
    bib = (REPO / "book" / "references.bib").read_text()
    for name, ds in DATASETS.items():
        assert ds.name == name and ds.title and ds.licence and ds.papers and ds.normalisation
        assert ds.landing_page.startswith(("https://", "http://"))
        assert f"{{{ds.citation}," in bib, f"{name}: citation key {ds.citation} not in book/references.bib"
        assert ds.original.files and ds.original.delimiter and ds.original.header and ds.original.columns
        assert ds.login_required or ds.vendored or ds.urls, f"{name}: no download URL and no login note"
        for url in ds.urls:
            assert url.startswith(("https://", "http://"))
        for part in ds.parts:
            assert re.fullmatch(r"[0-9a-f]{64}", part.sha256) and re.fullmatch(r"[0-9a-f]{64}", part.order_sha256)
            assert part.rows > 0 and part.names
    uci = [ds for ds in DATASETS.values() if "archive.ics.uci.edu" in ds.landing_page]
    assert {ds.name for ds in uci} == {"adult", "smartgrid", "nursery"}
    for ds in uci:  # UCI's static archive of the original, accepted as it is downloaded
        assert ds.urls[0].startswith("https://archive.ics.uci.edu/static/public/") and ds.urls[0].endswith(".zip")
        assert ds.urls[0].rsplit("/", 1)[-1].replace("%20", " ") in ds.archives


def test_readme_documents_every_dataset():
    readme = (REPO / "data" / "README.md").read_text()
    for ds in DATASETS.values():
        assert ds.landing_page in readme, f"data/README.md lacks the source of {ds.name}"
        for part in ds.parts:
            assert part.name in readme, f"data/README.md has no row for {part.name}"
        assert f"`{ds.name}`" in readme
    for entry in NOT_PUBLIC.values():
        assert entry.title in readme


def test_vendored_files_are_registered_and_tracked_only_in_the_package():
    registered = {p.name + ".gz" for ds in DATASETS.values() for p in ds.parts} | {"adult.names.gz", "README.md"}
    assert {p.name for p in VENDORED.iterdir() if p.is_file()} <= registered
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    assert not [f for f in files if f.endswith((".ipynb", ".html"))]
    assert [f for f in files if f.startswith("data/")] == ["data/README.md"], "data/ holds no second copy"
    assert {"ldp/data/vendored/adult.data.gz", "ldp/data/vendored/adult.test.gz"} <= set(files)
    for name in ("adult.data.gz", "adult.test.gz"):
        assert D.sha256_of(VENDORED / name) == KNOWN_COPIES[name]


@needs_shared
def test_shared_copies_are_the_known_bytes():
    """The content checksums were computed from these exact files (their byte hashes are in the shared README)."""
    for name, sha in KNOWN_COPIES.items():
        if (SHARED / name).is_file():
            assert D.sha256_of(SHARED / name) == sha, name


def test_unknown_dataset_names_the_dataset_and_what_to_do():
    with pytest.raises(D.DatasetUnavailable, match=r"no-such-dataset.*Known datasets: .*adult.*register it"):
        D.load("no-such-dataset")


def test_non_string_name_is_a_type_error():
    with pytest.raises(TypeError, match="name must be a string"):
        D.load(3)


def test_adult_ships_with_the_package_and_loads_with_expected_shape_and_dtypes():
    frame = D.load("adult")
    assert frame.shape == (48_842, 16)
    assert (frame["split"] == "train").sum() == 32_561
    assert len(frame.dropna()) == 45_222
    assert set(frame["income"].cat.categories) == {"<=50K", ">50K"}
    assert frame["age"].dtype.kind == "i" and isinstance(frame["sex"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("name", sorted(set(DATASETS) - {"adult"}))
def test_datasets_present_here_load_with_their_canonical_columns(name):
    if not D.is_available(name):
        pytest.skip(f"{name} not in any data directory (run `make data`)")
    frame = D.load(name)
    assert list(frame.columns) == list(DATASETS[name].columns) and len(frame) == DATASETS[name].rows


def test_content_checksum_ignores_row_order_and_sees_every_value():
    f = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None], "c": [0.5, 1.25, 2.0]})
    assert D.content_sha256(f) == D.content_sha256(f.iloc[::-1])
    assert D.content_sha256(f, sort=False) != D.content_sha256(f.iloc[::-1], sort=False)
    g = f.copy()
    g.loc[1, "c"] = 1.2500000001
    assert D.content_sha256(g) != D.content_sha256(f)
    assert D.content_sha256(f.rename(columns={"a": "z"})) != D.content_sha256(f)


# ---------------------------------------------------------------------------- an isolated data layout
@pytest.fixture
def iso(tmp_path, monkeypatch):
    """Empty package data, repository (a checkout), $LDP_DATA_DIR, per-user dir and shared folder."""
    root = tmp_path / "repo"
    (root / "ldp" / "data").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "data" / "external").mkdir(parents=True)
    pkg, env, user = tmp_path / "pkg", tmp_path / "envdir", tmp_path / "user"
    for d in (pkg, env, user):
        d.mkdir()
    monkeypatch.setattr(loaders, "REPO_ROOT", root)
    monkeypatch.setattr(loaders, "PACKAGE_DATA", pkg)
    monkeypatch.setattr(loaders, "user_data_dir", lambda: user)
    monkeypatch.setenv("LDP_DATA_DIR", str(env))
    monkeypatch.setenv("LDP_SHARED_DATASETS", str(tmp_path / "no-shared-folder"))
    loaders._CACHE.clear()
    yield {"root": root, "ext": root / "data" / "external", "pkg": pkg, "env": env, "user": user, "tmp": tmp_path}
    loaders._CACHE.clear()


def _only(monkeypatch, directory: Path):
    monkeypatch.setattr(loaders, "search_dirs", lambda: [directory])
    loaders._CACHE.clear()


# ---------------------------------------------------------------------------- original formats, rebuilt
def _shared_text(name: str) -> str:
    return gzip.decompress((SHARED / name).read_bytes()).decode()


def _lines(text: str) -> list[str]:
    return [ln for ln in text.split("\n") if ln]


def _shuffle(lines: list[str], seed: int = 1) -> list[str]:
    order = np.random.default_rng(seed).permutation(len(lines))
    return [lines[i] for i in order]


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, t in files.items():
            zf.writestr(n, t)
    return buf.getvalue()


def _adult_variants():
    data, test = _shared_text("adult.data.gz"), _shared_text("adult.test.gz")
    names = gzip.decompress((VENDORED / "adult.names.gz").read_bytes()).decode()
    head, body = _lines(test)[0], _lines(test)[1:]
    return {
        "UCI zip archive (adult.zip)": (
            {"adult.zip": _zip({"adult.data": data, "adult.test": test, "adult.names": names})},
            True,
        ),
        "plain members": ({"adult.data": data, "adult.test": test}, True),
        "shuffled rows": (
            {
                "adult.data": "\n".join(_shuffle(_lines(data))) + "\n",
                "adult.test": "\n".join([head] + _shuffle(body)) + "\n",
            },
            False,
        ),
    }


def _smartgrid_original(rows: list[str], header=True) -> str:
    """UCI's layout: commas, quoted header with stabf, ~15 significant digits (the copy keeps 9 decimals)."""
    vals = np.array([[float(v) for v in r.split(";")] for r in rows])
    noise = np.random.default_rng(7).uniform(-4e-10, 4e-10, size=vals.shape)
    out = ['"tau1","tau2","tau3","tau4","p1","p2","p3","p4","g1","g2","g3","g4","stab","stabf"'] if header else []
    for v, e in zip(vals, noise):
        stabf = "unstable" if v[-1] > 0 else "stable"  # UCI: stab > 0 means linearly unstable
        out.append(",".join(f"{x + d:.15g}" for x, d in zip(v, e)) + f',"{stabf}"')
    return "\n".join(out) + "\n"


def _smartgrid_variants():
    lines = _lines(_shared_text("Data_for_UCI_named.csv.gz"))[1:]
    return {
        "UCI zip archive, stabf restored, full precision": (
            {
                "electrical+grid+stability+simulated+data.zip": _zip(
                    {"Data_for_UCI_named.csv": _smartgrid_original(lines)}
                )
            },
            True,
        ),
        "original without header, shuffled": (
            {"Data_for_UCI_named.csv": _smartgrid_original(_shuffle(lines), header=False)},
            False,
        ),
    }


def _retail_variants():
    lines = _lines(_shared_text("retail.dat.gz"))
    return {
        "FIMI plain file with trailing spaces": ({"retail.dat": "".join(ln + " \n" for ln in lines)}, True),
        "shuffled baskets": ({"retail.dat": "\n".join(_shuffle(lines)) + "\n"}, False),
    }


def _nursery_variants():
    lines = _lines(_shared_text("nursery.data.gz"))
    body = lines[1:]
    return {
        "UCI zip archive, no header": (
            {"nursery.zip": _zip({"nursery.data": "\n".join(body) + "\n", "nursery.names": "names"})},
            True,
        ),
        "shuffled, header with `class`": (
            {"nursery.data": "\n".join([lines[0].replace("classification", "class")] + _shuffle(body)) + "\n"},
            True,
        ),
    }


def _quote(line: str) -> str:
    return ",".join(f'"{v}"' for v in line.split(","))


def _students_variants():
    lines = _lines(_shared_text("StudentsPerformance.csv.gz"))
    header = (
        lines[0].replace("math", "math score").replace("reading", "reading score").replace("writing", "writing score")
    )
    original = "\n".join(_quote(ln) for ln in [header] + lines[1:]) + "\n"
    return {
        "Kaggle archive, original names, quoted": ({"archive.zip": _zip({"StudentsPerformance.csv": original})}, True),
        "no header": ({"StudentsPerformance.csv": "\n".join(lines[1:]) + "\n"}, True),
        "shuffled": ({"StudentsPerformance.csv": "\n".join([header] + _shuffle(lines[1:])) + "\n"}, False),
    }


def _cardio_variants():
    lines = _lines(_shared_text("cardio_train.csv.gz"))
    header = lines[0].replace("sbp", "ap_hi").replace("dbp", "ap_lo")
    return {
        "Kaggle archive, ap_hi/ap_lo": (
            {"archive.zip": _zip({"cardio_train.csv": "\n".join([header] + lines[1:])})},
            True,
        ),
        "shuffled (rows sorted back by id)": ({"cardio_train.csv": "\n".join([header] + _shuffle(lines[1:]))}, True),
    }


def _diabetes_original(lines: list[str]) -> list[str]:
    """Kaggle's words for the copy's codes; 18 of the 'Male' rows become 'Other' as in the original."""
    gender = {"1": "Female", "0": "Male"}
    smoking = {"0": "No Info", "1": "not current", "2": "never", "3": "former", "4": "ever", "5": "current"}
    rows = [ln.split(",") for ln in lines[1:]]
    males = [i for i, r in enumerate(rows) if r[0] == "0"]
    other = set(np.random.default_rng(3).choice(males, size=18, replace=False).tolist())
    out = [lines[0]]
    for i, r in enumerate(rows):
        r = [("Other" if i in other else gender[r[0]])] + r[1:4] + [smoking[r[4]]] + r[5:]
        out.append(",".join(r))
    return out


def _diabetes_variants():
    lines = _lines(_shared_text("diabetes_prediction_dataset.csv.gz"))
    original = _diabetes_original(lines)
    return {
        "Kaggle archive, words, gender Other": (
            {"archive.zip": _zip({"diabetes_prediction_dataset.csv": "\n".join(original) + "\n"})},
            True,
        ),
        "shuffled": ({"diabetes_prediction_dataset.csv": "\n".join([original[0]] + _shuffle(original[1:]))}, False),
    }


VARIANTS = {
    "adult": _adult_variants,
    "smartgrid": _smartgrid_variants,
    "retail": _retail_variants,
    "nursery": _nursery_variants,
    "students": _students_variants,
    "cardio": _cardio_variants,
    "diabetes": _diabetes_variants,
}


def _write(directory: Path, files: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for n, content in files.items():
        (directory / n).write_bytes(content if isinstance(content, bytes) else content.encode())


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    key = pd.Series(loaders.canonical_lines(frame))
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def test_every_dataset_has_rebuilt_variants():
    assert set(VARIANTS) == set(DATASETS)


@needs_shared
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_every_packaging_loads_to_the_registered_canonical_table(name, tmp_path, monkeypatch):
    ds = DATASETS[name]
    shared_dir = tmp_path / "shared"
    _write(shared_dir, {p.name + ".gz": (SHARED / (p.name + ".gz")).read_bytes() for p in ds.parts})
    _only(monkeypatch, shared_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error", D.DatasetWarning)
        reference = D.load(name)
    assert list(reference.columns) == list(ds.columns) and len(reference) == ds.rows
    for part in ds.parts:
        sub = reference[reference["split"] == part.key].drop(columns="split") if name == "adult" else reference
        assert D.content_sha256(sub.reset_index(drop=True)) == part.sha256
    for label, (files, same_order) in VARIANTS[name]().items():
        vdir = tmp_path / re.sub(r"\W+", "_", label)
        _write(vdir, files)
        _only(monkeypatch, vdir)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", D.DatasetWarning)
            frame = D.load(name)
        order_warned = any("not in the order" in str(w.message) for w in caught)
        if same_order:
            assert not order_warned, label
            pd.testing.assert_frame_equal(frame, reference, check_exact=True, obj=label)
        else:
            assert order_warned, label
            pd.testing.assert_frame_equal(_sorted(frame), _sorted(reference), check_exact=True, obj=label)


def _edit_one_value(name: str, files: dict) -> dict:
    """Change one value of one data row to another valid value."""
    fname, content = next((k, v) for k, v in files.items() if not k.endswith(".zip"))
    pat, rep = {
        "adult": (r"^39,", "40,"),
        "smartgrid": (r"^(\d\.\d{4})", r"\g<1>9"),
        "retail": (r"^0 ", "16469 "),
        "nursery": (r"recommend$", "priority"),
        "students": (r",72,72,74(\r?)$", r",73,72,74\1"),
        "cardio": (r";110;80;", ";111;80;"),
        "diabetes": (r",25\.19,", ",25.18,"),
    }[name]
    lines = content.split("\n")
    i = next(k for k, ln in enumerate(lines) if re.search(pat, ln) and not ln.startswith(('"tau1"', "parents")))
    lines[i] = re.sub(pat, rep, lines[i], count=1)
    return {**files, fname: "\n".join(lines)}


@needs_shared
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_a_one_value_edit_fails_naming_the_file(name, tmp_path, monkeypatch):
    files = next(f for f, _ in VARIANTS[name]().values() if not any(k.endswith(".zip") for k in f))
    _write(tmp_path, _edit_one_value(name, files))
    _only(monkeypatch, tmp_path)
    with pytest.raises(D.DatasetCorrupted, match=rf"'{name}'.*{re.escape(str(tmp_path))}.*checksum mismatch"):
        D.load(name)


def test_stabf_that_contradicts_stab_is_refused(iso):
    header = '"tau1","tau2","tau3","tau4","p1","p2","p3","p4","g1","g2","g3","g4","stab","stabf"'
    row = ",".join(["1"] * 12) + ',0.05,"stable"'
    (iso["env"] / "Data_for_UCI_named.csv").write_text(header + "\n" + row + "\n")
    with pytest.raises(D.DatasetCorrupted, match="stabf disagrees with the sign of stab"):
        D.load("smartgrid")


# ---------------------------------------------------------------------------- faults
def _bad_gzips() -> dict[str, bytes]:
    """Adult's training file gzipped with a wrong CRC (gzip.BadGzipFile) and with a damaged deflate stream
    (zlib.error, which gzip does not wrap)."""
    import zlib

    good = (VENDORED / "adult.data.gz").read_bytes()
    crc = bytearray(good)
    crc[-6] ^= 0xFF  # the CRC-32 in the gzip trailer
    plain = gzip.compress(gzip.decompress(good), mtime=0)  # a 10-byte header, no file name
    for pos in range(10, 200):
        damaged = bytearray(plain)
        damaged[pos] ^= 0xFF
        try:
            gzip.decompress(bytes(damaged))
        except zlib.error:
            break
        except Exception:  # noqa: BLE001 - another failure: try the next byte
            continue
    else:
        raise AssertionError("no single-byte damage gave zlib.error")
    with pytest.raises(gzip.BadGzipFile, match="CRC"):
        gzip.decompress(bytes(crc))
    return {"bad CRC": bytes(crc), "damaged stream": bytes(damaged)}


@pytest.mark.parametrize("kind", ["bad CRC", "damaged stream"])
def test_corrupted_gzip_is_refused_naming_the_file_and_reported_by_status(kind, iso, capsys):
    bad = iso["env"] / "adult.data.gz"
    bad.write_bytes(_bad_gzips()[kind])
    (iso["env"] / "adult.test.gz").write_bytes((VENDORED / "adult.test.gz").read_bytes())
    with pytest.raises(D.DatasetCorrupted, match=re.escape(str(bad))):
        D.load("adult")
    capsys.readouterr()
    assert cli.main(["status", "adult"]) == 1
    out = capsys.readouterr().out
    assert "[corrupted]" in out and str(bad) in out and "Corrupted copies: adult" in out
    assert cli.main(["fetch", "--no-download", "adult"]) == 1  # reported, no crash
    assert str(bad) in capsys.readouterr().out


def test_a_bad_first_copy_is_reported_and_the_good_later_one_used(iso, capsys):
    bad = iso["env"] / "adult.data.gz"  # $LDP_DATA_DIR is searched before data/external/
    bad.write_bytes(_bad_gzips()["bad CRC"])
    for n in ("adult.data.gz", "adult.test.gz"):
        (iso["ext"] / n).write_bytes((VENDORED / n).read_bytes())
    with pytest.warns(
        D.DatasetWarning,
        match=rf"skipped a corrupted copy.*{re.escape(str(iso['ext']))}.*"
        rf"{re.escape(str(bad))}",
    ):
        frame = D.load("adult")
    assert frame.shape == (48_842, 16)
    assert cli.main(["status", "adult"]) == 1
    out = capsys.readouterr().out
    assert "[ok]" in out and "corrupted copy: " in out and str(bad) in out


def test_both_copies_bad_names_both(iso):
    for d in (iso["env"], iso["ext"]):
        (d / "nursery.data").write_text("parents,has_nurs\nusual,proper\n")
    with pytest.raises(D.DatasetCorrupted) as info:
        D.load("nursery")
    assert str(iso["env"]) in str(info.value) and str(iso["ext"]) in str(info.value)


def test_relative_data_dir_is_resolved_against_the_repository_root_whatever_the_cwd(iso, monkeypatch):
    monkeypatch.setenv("LDP_DATA_DIR", "data/external")
    seen = set()
    for cwd in (iso["root"], iso["root"] / "ldp", iso["tmp"]):
        monkeypatch.chdir(cwd)
        seen.add(loaders.env_data_dir())
    assert seen == {(iso["root"] / "data" / "external").resolve()}


def test_relative_data_dir_outside_a_checkout_is_refused(iso, monkeypatch, capsys):
    (iso["root"] / "pyproject.toml").unlink()  # an installed package: no checkout around it
    monkeypatch.setenv("LDP_DATA_DIR", "mydata")
    with pytest.raises(D.DataDirError, match=r"LDP_DATA_DIR='mydata'.*relative.*absolute path"):
        D.search_dirs()
    assert cli.main(["status"]) == 2
    assert "absolute path" in capsys.readouterr().err


def test_data_home_is_never_inside_the_installed_package(iso, monkeypatch):
    monkeypatch.delenv("LDP_DATA_DIR")
    assert D.data_home() == iso["ext"]
    (iso["root"] / "pyproject.toml").unlink()
    assert D.data_home() == iso["user"] and iso["user"] in D.search_dirs()


# ---------------------------------------------------------------------------- missing data and fetch
def test_missing_file_message_says_what_to_do(iso):
    with pytest.raises(D.DatasetUnavailable) as info:
        D.load("nursery")
    msg = str(info.value)
    assert not isinstance(info.value, D.DatasetCorrupted)
    assert "'nursery'" in msg and "nursery.data" in msg and str(iso["env"]) in msg
    assert "python -m ldp.data fetch" in msg and "https://archive.ics.uci.edu/static/public/76/nursery.zip" in msg
    with pytest.raises(D.DatasetUnavailable) as info:
        D.load("cardio")
    msg = str(info.value)
    assert "kaggle.com/datasets/sulianova" in msg and "cardio_train.csv" in msg and str(iso["env"]) in msg
    assert "fetch" not in msg


def test_status_lists_directories_and_exits_nonzero_naming_missing_datasets(iso, capsys):
    assert cli.main(["status"]) == 1
    out = capsys.readouterr().out
    for d in (iso["env"], iso["ext"], iso["user"]):
        assert str(d) in out
    assert f"{iso['env']}  [$LDP_DATA_DIR]" in out and "<- fetch writes here" in out
    missing = re.search(r"Missing: (.*)\. The chapters", out).group(1).split(", ")
    assert set(missing) == set(DATASETS)  # the isolated package data holds no Adult either


@needs_shared
def test_fetch_copies_from_the_shared_folder_and_then_status_is_clean(iso, monkeypatch, capsys):
    monkeypatch.setenv("LDP_SHARED_DATASETS", str(SHARED))
    assert cli.main(["fetch", "--no-download", "nursery", "students"]) == 0
    assert (iso["env"] / "nursery.data.gz").is_file() and (iso["env"] / "StudentsPerformance.csv.gz").is_file()
    assert cli.main(["status", "nursery", "students"]) == 0
    assert "All datasets present and verified." in capsys.readouterr().out


def test_fetch_prints_the_kaggle_file_and_directory_and_fails(iso, capsys):
    assert cli.main(["fetch", "diabetes"]) == 1
    out = capsys.readouterr().out
    assert "[manual]" in out and "iammustafatz/diabetes-prediction-dataset" in out
    assert "diabetes_prediction_dataset.csv" in out and str(iso["env"]) in out and "Missing: diabetes" in out


@needs_shared
def test_fetch_downloads_verifies_and_rejects_a_wrong_download(iso, monkeypatch, capsys):
    import urllib.request

    body = "\n".join(_lines(_shared_text("nursery.data.gz"))[1:]) + "\n"
    served = {
        "good": _zip({"nursery.data": body}),
        "bad": _zip({"nursery.data": body.replace("recommend\n", "priority\n", 1)}),
    }
    which = {"v": "bad"}

    class Resp(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    def fake(url, timeout=None):
        if not url.endswith(".zip"):
            raise OSError("offline test")
        return Resp(served[which["v"]])

    monkeypatch.setattr(urllib.request, "urlopen", fake)
    assert cli.main(["fetch", "nursery"]) == 1
    out = capsys.readouterr().out
    assert "does not match the registered content" in out and not (iso["env"] / "nursery.zip").exists()
    which["v"] = "good"
    assert cli.main(["fetch", "nursery"]) == 0
    assert (iso["env"] / "nursery.zip").is_file() and D.load("nursery").shape == (12_960, 9)


def test_fetch_sets_aside_a_corrupted_file_it_owns_but_never_touches_package_data(iso, monkeypatch, capsys):
    monkeypatch.delenv("LDP_DATA_DIR")  # fetch writes into data/external/
    owned = iso["ext"] / "nursery.data"
    owned.write_text("not the file")
    vendored = iso["pkg"] / "adult.data"
    vendored.write_text("not the adult file")
    assert cli.main(["fetch", "--no-download", "nursery", "adult"]) == 1
    out = capsys.readouterr().out
    assert not owned.exists() and (iso["ext"] / "nursery.data.corrupted").read_text() == "not the file"
    assert vendored.read_text() == "not the adult file" and str(vendored) in out


# ---------------------------------------------------------------------------- stand-in boxes
def test_load_or_standin_falls_back_visibly(iso):
    def standin():
        """A tiny synthetic nursery-like table."""
        return pd.DataFrame({"a": [1, 2]})

    frame, source = D.load_or_standin("nursery", standin)
    assert not source.real and len(frame) == 2
    assert "Stand-in" in source._repr_html_() and "tiny synthetic" in source.message()


def test_load_or_standin_does_not_hide_corruption(iso):
    (iso["env"] / "nursery.data").write_bytes(b"not the file")
    with pytest.raises(D.DatasetCorrupted):
        D.load_or_standin("nursery", lambda: pd.DataFrame())


def test_load_or_standin_uses_real_data_when_present():
    frame, source = D.load_or_standin("adult", lambda: pd.DataFrame())
    assert source.real and len(frame) == 48_842 and "Real data" in source._repr_html_()


@pytest.mark.parametrize("name", sorted(set(DATASETS) - {"adult"}))
def test_standin_box_of_a_registered_dataset_says_exactly_what_to_do(name):
    ds = DATASETS[name]
    msg = D.DataSource(name, False, "a generator").message()
    assert "/" + "work" not in msg and "illustrative" in msg
    if ds.login_required:
        assert ds.landing_page in msg and ds.parts[0].name in msg and "Kaggle account" in msg
        assert "make data" not in msg and "fetch" not in msg
    else:
        assert "make data" in msg and ds.urls[0] in msg
    assert "same as with the real file" in D.DataSource(name, False, "x", equivalent=True).message()


def _standin_labels() -> set[str]:
    """Every name given to DataSource(..., False, ...) in the package and the notebooks."""
    labels = set()
    for path in list((REPO / "ldp").rglob("*.py")) + list((REPO / "notebooks").glob("*.md")):
        labels |= set(re.findall(r'DataSource\(\s*"([^"]+)",\s*False', path.read_text()))
    return labels


def test_every_standin_box_in_the_book_is_registered_or_explained():
    labels = _standin_labels()
    assert {"tpce", "healthcare"} <= labels
    labels |= {"celeba", "dss"}  # the CPL chapter shows these two from a loop over (name, description) pairs
    for label in labels:
        msg = D.DataSource(label, False, "a generator").message()
        if label in DATASETS:
            continue
        entries = find_not_public(label)
        assert entries, f"stand-in box {label!r} has neither a registry entry nor a NOT_PUBLIC entry"
        assert "make data" not in msg and "fetch" not in msg
        for e in entries:
            assert e.paper in msg and e.why_standin in msg


def test_not_public_entries_cover_the_papers_unobtainable_data():
    labels = {
        "TPC-E": "tpce",
        "AV Healthcare": "healthcare",
        "heart disease (BRFSS 2015)": "heart",
        "MyAnimeList": "myanimelist",
        "JD": "jd",
        "CelebA": "celeba",
        "DSS": "dss",
    }
    for label, key in labels.items():
        assert NOT_PUBLIC[key] in find_not_public(label), label
    assert [e.name for e in find_not_public("MyAnimeList and JD")] == ["myanimelist", "jd"]


# ---------------------------------------------------------------------------- installed mode
def _site_packages() -> list[str]:
    import sysconfig

    return sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


@pytest.mark.slow
def test_installed_package_in_a_fresh_venv_finds_adult_and_uses_the_user_directory(tmp_path):
    """`pip install .` (not editable) into a new venv, run from a directory outside the repository."""
    import shutil
    import sys

    src = tmp_path / "src"
    src.mkdir()
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / f, src / f)
    shutil.copytree(REPO / "ldp", src / "ldp", ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the runtime dependencies come from the test interpreter's environment (offline); a .pth adds its
    # site-packages *after* the venv's own, and does not run that environment's editable-install hooks
    Path(site, "deps.pth").write_text("\n".join(_site_packages()) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            str(src),
        ],
        check=True,
        cwd=tmp_path,
    )
    shutil.rmtree(src)  # nothing of the source tree is left to find
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LDP_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg"))

    def run(*args, **extra):
        return subprocess.run([str(py), *args], capture_output=True, text=True, cwd=run_dir, env={**env, **extra})

    res = run("-c", "import ldp, ldp.data; f = ldp.data.load('adult'); print(ldp.__file__); print(f.shape)")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith(site) and "(48842, 16)" in res.stdout
    user_dir = tmp_path / "xdg" / "ldp-compendium"
    res = run("-m", "ldp.data", "status")
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"{user_dir}  [per-user data directory]" in res.stdout and "<- fetch writes here" in res.stdout
    assert "[ok]" in res.stdout and "Missing: smartgrid, retail, nursery, students, cardio, diabetes" in res.stdout
    assert "site-packages/data" not in res.stdout
    res = run("-m", "ldp.data", "fetch", "--no-download")
    assert res.returncode == 1 and user_dir.is_dir() and "[manual]" in res.stdout and str(user_dir) in res.stdout
    if SHARED is not None and SHARED.is_dir():
        res = run("-m", "ldp.data", "fetch", "--no-download", LDP_SHARED_DATASETS=str(SHARED))
        assert res.returncode == 0, res.stdout + res.stderr
        assert (user_dir / "nursery.data.gz").is_file()
        assert run("-m", "ldp.data", "status").returncode == 0
    res = run("-m", "ldp.data", "status", LDP_DATA_DIR="relative/dir")
    assert res.returncode == 2 and "absolute path" in res.stderr
    assert run("-m", "ldp.data", "bogus").returncode == 2
    res = run("-m", "ldp.data", "status", "no-such-dataset")
    assert res.returncode == 2 and "unknown dataset 'no-such-dataset'" in res.stderr and not res.stdout
    installed = Path(site) / "ldp" / "data"
    assert sorted(p.name for p in (installed / "vendored").iterdir()) == [
        "adult.data.gz",
        "adult.names.gz",
        "adult.test.gz",
    ]
    assert not (Path(site) / "data").exists()


# The first five rows of UCI's Data_for_UCI_named.csv as published (CC BY 4.0), quoted in public documentation:
# full precision and the stabf label, i.e. what the shared copy rounded and dropped.
UCI_GRID_HEAD = """"tau1","tau2","tau3","tau4","p1","p2","p3","p4","g1","g2","g3","g4","stab","stabf"
2.95906002455997,3.07988520422811,8.38102539191882,9.78075443222607,3.76308477206316,-0.782603630987543,-1.25739482958732,-1.7230863114883,0.650456460887227,0.859578105752345,0.887444920638513,0.958033987602737,0.0553474891727752,"unstable"
9.3040972346785,4.90252411201167,3.04754072762177,1.36935735529605,5.06781210427845,-1.94005842705193,-1.87274168559721,-1.25501199162931,0.41344056837935,0.862414076352903,0.562139050527675,0.781759910653126,-0.00595746432603695,"stable"
8.97170690932022,8.84842842134833,3.04647874898866,1.21451813833956,3.40515818001095,-1.20745559234302,-1.27721014673295,-0.92049244093498,0.163041039311334,0.766688656526962,0.839444015400588,0.109853244952427,0.00347087904838871,"unstable"
0.716414776295121,7.66959964406565,4.48664083058949,2.34056298396795,3.96379106326633,-1.02747330413905,-1.9389441526466,-0.997373606480681,0.446208906537321,0.976744082924302,0.929380522872661,0.36271777426931,0.028870543444887,"unstable"
3.13411155161342,7.60877161603408,4.94375930178099,9.85757326996638,3.52581081652096,-1.12553095451115,-1.84597485447561,-0.554305007534195,0.797109525792467,0.455449947148291,0.656946658473716,0.820923486481631,0.0498603734837059,"unstable"
"""


def test_published_grid_rows_normalise_to_the_copy_and_agree_with_the_stabf_rule():
    """The stabf rule (unstable iff stab > 0) holds on the published rows, and rounding to 9 decimals gives
    exactly the values of the re-packaged copy."""
    ds = DATASETS["smartgrid"]
    part = ds.parts[0]
    frame = loaders._parse_smartgrid(UCI_GRID_HEAD.encode(), ds, part, "published head")  # raises if stabf disagrees
    assert frame["stabf"].tolist() == ["unstable", "stable", "unstable", "unstable", "unstable"]
    if SHARED is not None and SHARED.is_dir():
        copy = _lines(_shared_text("Data_for_UCI_named.csv.gz"))[1:6]
        expected = np.array([[float(v) for v in ln.split(";")] for ln in copy])
        assert np.array_equal(frame[list(ds.columns[:-1])].to_numpy(), expected)
