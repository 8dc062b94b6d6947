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
from ldp.data.registry import DATASETS, KNOWN_COPIES, NOT_PUBLIC, find_dataset, find_not_public

REPO = Path(__file__).resolve().parents[1]
VENDORED = loaders.PACKAGE_DATA
SHARED = cli.shared_dir()
needs_shared = pytest.mark.skipif(
    SHARED is None or not SHARED.is_dir(), reason="the shared datasets folder is not here (set LDP_SHARED_DATASETS)"
)
TABLES = sorted(name for name, ds in DATASETS.items() if ds.kind == "table")


def _needs_shared_file(*names: str):
    """Skip unless the shared folder holds these files (CelebA, BRFSS and the SYN tables are optional)."""
    present = SHARED is not None and all((SHARED / n).is_file() for n in names)
    return pytest.mark.skipif(not present, reason=f"{', '.join(names)} not in the shared datasets folder")


# ---------------------------------------------------------------------------- registry and provenance
def test_registry_entries_are_complete():
    bib = (REPO / "book" / "references.bib").read_text()
    for name, ds in DATASETS.items():
        assert ds.name == name and ds.title and ds.licence and ds.papers and ds.normalisation
        assert ds.landing_page.startswith(("https://", "http://"))
        assert f"{{{ds.citation}," in bib, f"{name}: citation key {ds.citation} not in book/references.bib"
        assert ds.original.files and ds.original.delimiter and ds.original.header and ds.original.columns
        assert ds.login_required or ds.vendored or ds.urls or ds.local_only, f"{name}: no URL, login or local note"
        assert ds.kind in ("table", "array") and (ds.kind == "array") != bool(ds.columns)
        if ds.local_only:
            assert ds.obtain and not ds.urls and not ds.vendored, f"{name}: local-only data are never downloaded"
        for url in ds.urls:
            assert url.startswith(("https://", "http://"))
        for part in ds.parts:
            assert re.fullmatch(r"[0-9a-f]{64}", part.sha256) and re.fullmatch(r"[0-9a-f]{64}", part.order_sha256)
            assert part.rows > 0 and part.names
            if ds.kind == "array":
                assert part.sha256 == part.order_sha256 and part.shape[0] == part.rows
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


@pytest.mark.parametrize("name", sorted(set(TABLES) - {"adult"}))
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


def _celeba_variants():
    text = _shared_text("list_attr_celeba.txt.gz")  # CRLF line ends and runs of spaces, as published
    lines = [ln.rstrip("\r") for ln in _lines(text)]
    names, rows = lines[1].split(), [ln.split() for ln in lines[2:]]
    csv = ["image_id," + ",".join(names)] + [",".join(r) for r in _shuffle(rows, seed=2)]
    return {
        "original plain file": ({"list_attr_celeba.txt": text}, True),
        "CSV re-packaging with image_id header, shuffled (rows sorted back by image)": (
            {"list_attr_celeba.csv": "\n".join(csv) + "\n"},
            True,
        ),
    }


def _heart_variants():
    text = _shared_text("heart_disease_health_indicators_BRFSS2015.csv.gz")
    lines = _lines(text)
    return {
        "Kaggle archive": ({"archive.zip": _zip({"heart_disease_health_indicators_BRFSS2015.csv": text})}, True),
        "no header, shuffled": (
            {"heart_disease_health_indicators_BRFSS2015.csv": "\n".join(_shuffle(lines[1:])) + "\n"},
            False,
        ),
    }


VARIANTS = {
    "adult": _adult_variants,
    "celeba": _celeba_variants,
    "heart": _heart_variants,
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
        (directory / n).parent.mkdir(parents=True, exist_ok=True)
        (directory / n).write_bytes(content if isinstance(content, bytes) else content.encode())


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    key = pd.Series(loaders.canonical_lines(frame))
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def test_every_dataset_has_rebuilt_variants():
    assert set(VARIANTS) == set(TABLES)  # the array dataset (SYN tables) has its own tests below


def _skip_unless_shared_parts(ds) -> None:
    if SHARED is None or not all((SHARED / (p.name + ".gz")).is_file() for p in ds.parts):
        pytest.skip(f"{ds.name} is not in the shared datasets folder")


@needs_shared
@pytest.mark.parametrize("name", TABLES)
def test_every_packaging_loads_to_the_registered_canonical_table(name, tmp_path, monkeypatch):
    ds = DATASETS[name]
    _skip_unless_shared_parts(ds)
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
        "celeba": (r"^(000001\.jpg) -1", r"\1  1"),
        "heart": (r"^0\.0,1\.0,1\.0,1\.0,40\.0,", "0.0,1.0,1.0,1.0,41.0,"),
    }[name]
    lines = content.split("\n")
    i = next(k for k, ln in enumerate(lines) if re.search(pat, ln) and not ln.startswith(('"tau1"', "parents")))
    lines[i] = re.sub(pat, rep, lines[i], count=1)
    return {**files, fname: "\n".join(lines)}


@needs_shared
@pytest.mark.parametrize("name", TABLES)
def test_a_one_value_edit_fails_naming_the_file(name, tmp_path, monkeypatch):
    _skip_unless_shared_parts(DATASETS[name])
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
    if ds.local_only:
        assert ds.obtain in msg and "make data" not in msg and "download" in msg
    elif ds.login_required:
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
        if find_dataset(label) is not None:
            assert "The book has no source" not in msg
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
        "MyAnimeList": "myanimelist",
        "JD": "jd",
        "DSS": "dss",
    }
    for label, key in labels.items():
        assert NOT_PUBLIC[key] in find_not_public(label), label
    assert [e.name for e in find_not_public("MyAnimeList and JD")] == ["myanimelist", "jd"]
    # registered since the shared folder holds verified copies: labels resolve to the registry entries
    for label, key in {"heart disease (BRFSS 2015)": "heart", "CelebA": "celeba", "celeba": "celeba"}.items():
        assert find_dataset(label) is DATASETS[key] and not find_not_public(label), label
    assert find_dataset("no such data") is None and find_dataset(3) is None


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
    missing = "smartgrid, retail, nursery, students, cardio, diabetes, celeba, heart, mao2025_syn"
    assert "[ok]" in res.stdout and f"Missing: {missing}" in res.stdout
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


# ---------------------------------------------------------------------------- CelebA, BRFSS heart, SYN tables
CELEBA = DATASETS["celeba"]


def _celeba_text(rows: list[list[int]], count: int | None = None, names=None, crlf=True) -> bytes:
    names = list(CELEBA.columns) if names is None else names
    lines = ([str(len(rows) if count is None else count)] if count is not False else []) + [" ".join(names)]
    lines += [f"{i + 1:06d}.jpg " + " ".join(f"{v:2d}" for v in r) for i, r in enumerate(rows)]
    end = "\r\n" if crlf else "\n"
    return (end.join(lines) + end).encode()


def _parse_celeba(content: bytes) -> pd.DataFrame:
    return loaders._parse_celeba(content, CELEBA, CELEBA.parts[0], "test file")


def test_celeba_parser_maps_minus_one_to_zero_and_orders_rows_by_image():
    rows = [[(-1) ** (i + j) for j in range(40)] for i in range(3)]
    frame = _parse_celeba(_celeba_text(rows))
    assert list(frame.columns) == list(CELEBA.columns) and frame.dtypes.unique().tolist() == [np.int8]
    assert frame.to_numpy().tolist() == [[int(v > 0) for v in r] for r in rows]
    text = _celeba_text(rows).decode().split("\r\n")
    shuffled = "\n".join(text[:2] + [text[4], text[2], text[3]]) + "\n"  # LF, rows out of order
    pd.testing.assert_frame_equal(_parse_celeba(shuffled.encode()), frame)
    no_count = _celeba_text(rows, count=False, crlf=False)
    pd.testing.assert_frame_equal(_parse_celeba(no_count), frame)
    zero_one = _celeba_text([[int(v > 0) for v in r] for r in rows])
    pd.testing.assert_frame_equal(_parse_celeba(zero_one), frame)
    reordered = list(CELEBA.columns)[::-1]
    pd.testing.assert_frame_equal(
        _parse_celeba(_celeba_text([r[::-1] for r in rows], names=reordered)), frame
    )  # columns put back in the published order


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda rows: (rows, 5, None), "count line says 5 images but 3 lines follow"),
        (lambda rows: ([rows[0][:-1] + [2]] + rows[1:], None, None), "an attribute value is not -1"),
        (lambda rows: (rows, None, list(CELEBA.columns[:-1]) + ["Old"]), "attribute names"),
        (lambda rows: ([rows[0], rows[1][:-1], rows[2]], None, None), "too few fields"),
    ],
)
def test_celeba_parser_refuses_a_bad_file(change, message):
    rows, count, names = change([[1] * 40 for _ in range(3)])
    with pytest.raises(D.DatasetCorrupted, match=message):
        _parse_celeba(_celeba_text(rows, count=count, names=names))
    text = _celeba_text([[1] * 40] * 2).replace(b"000002.jpg", b"000001.jpg")
    with pytest.raises(D.DatasetCorrupted, match="image names are not 000001.jpg to 000002.jpg"):
        _parse_celeba(text)


@_needs_shared_file("list_attr_celeba.txt.gz")
def test_celeba_loads_fast_with_the_verified_marginals(tmp_path, monkeypatch):
    import time

    _write(tmp_path, {"list_attr_celeba.txt.gz": (SHARED / "list_attr_celeba.txt.gz").read_bytes()})
    _only(monkeypatch, tmp_path)
    start = time.perf_counter()
    frame = D.load("celeba")
    seconds = time.perf_counter() - start
    assert frame.shape == (202_599, 40) and (frame.dtypes == np.int8).all()
    assert isinstance(frame.index, pd.RangeIndex)  # row i is image i + 1 (000001.jpg first)
    shares = (frame[["Male", "Smiling", "Young", "Eyeglasses", "Attractive", "Blond_Hair"]].mean() * 100).round(2)
    assert shares.tolist() == [41.68, 48.21, 77.36, 6.51, 51.25, 14.80]  # the shared README's check
    assert seconds < 10, f"CelebA took {seconds:.1f} s to load and verify (about 2.5 s on an idle core)"


@_needs_shared_file("heart_disease_health_indicators_BRFSS2015.csv.gz")
def test_heart_loads_as_integers_with_the_verified_counts(tmp_path, monkeypatch):
    name = "heart_disease_health_indicators_BRFSS2015.csv.gz"
    _write(tmp_path, {name: (SHARED / name).read_bytes()})
    _only(monkeypatch, tmp_path)
    frame = D.load("heart")
    assert frame.shape == (253_680, 22) and (frame.dtypes == np.int64).all()
    assert list(frame.columns) == list(DATASETS["heart"].columns)
    assert frame["HeartDiseaseorAttack"].value_counts().to_dict() == {0: 229_787, 1: 23_893}
    assert frame["Diabetes"].value_counts().sort_index().tolist() == [213_703, 4_631, 35_346]
    assert (frame["Sex"] == 1).sum() == 111_706 and round(frame["BMI"].mean(), 2) == 28.38


def test_heart_parser_refuses_non_integral_and_missing_values():
    ds = DATASETS["heart"]
    header = ",".join(ds.columns)
    good = ",".join(["1.0"] * 22)
    frame = loaders._parse_heart(f"{header}\n{good}\n".encode(), ds, ds.parts[0], "t")
    assert frame.to_numpy().tolist() == [[1] * 22] and frame["BMI"].dtype == np.int64
    with pytest.raises(D.DatasetCorrupted, match="not integral"):
        loaders._parse_heart(f"{header}\n{good[:-1]}5\n".encode(), ds, ds.parts[0], "t")
    with pytest.raises(D.DatasetCorrupted, match="missing or not finite"):
        loaders._parse_heart(f"{header}\n{good[:-4]},\n".encode(), ds, ds.parts[0], "t")
    with pytest.raises(D.DatasetCorrupted, match="does not name the 22 published columns"):
        loaders._parse_heart(f"{header.replace('BMI', 'Weight')}\n{good}\n".encode(), ds, ds.parts[0], "t")


SYN_TOTALS = {10: 5_178_550, 20: 5_361_969, 30: 5_546_711, 40: 5_732_326, 50: 5_918_622}  # the shared README's


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


@_needs_shared_file("mao2025-syn/syn3_c10.npy.gz", "mao2025-syn/syn4_c50.npy.gz")
def test_syn_tables_load_from_the_shared_layout_and_from_re_saved_copies(tmp_path, monkeypatch):
    for kind in (3, 4):
        for c in (10, 50):
            name = f"mao2025-syn/syn{kind}_c{c}.npy.gz"
            _write(tmp_path / "shared", {name: (SHARED / name).read_bytes()})
    _only(monkeypatch, tmp_path / "shared")
    table = D.load_syn_counts(3, 10)
    assert table.shape == (10, 20_000) and table.dtype == np.int64 and table.sum() == SYN_TOTALS[10]
    assert (table.sum(axis=0) > 0).all()  # every item occurs
    assert D.load_syn_counts("SYN4", 50).sum() == SYN_TOTALS[50]
    np.testing.assert_array_equal(D.load_array("mao2025_syn", "syn3_c10"), table)
    reference = table.copy()
    table[0, 0] += 1  # a fresh copy each time
    np.testing.assert_array_equal(D.load_syn_counts(3, 10), reference)
    # re-saved as big-endian int32, flat in the data directory, not gzipped: the same content
    flat = tmp_path / "flat"
    _write(flat, {"syn3_c10.npy": _npy(reference.astype(">i4"))})
    _only(monkeypatch, flat)
    np.testing.assert_array_equal(D.load_syn_counts("syn3", 10), reference)
    with pytest.raises(D.DatasetUnavailable, match=r"syn3_c20\.npy\[\.gz\]"):
        D.load_syn_counts(3, 20)


@_needs_shared_file("mao2025-syn/syn3_c10.npy.gz")
@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda a: a + np.eye(*a.shape, dtype=a.dtype), "checksum mismatch"),
        (lambda a: a[:, :-1], r"shape \(10, 19999\)"),
        (lambda a: a.astype(float), "not an integer array"),
        (lambda a: a - 10**9, "negative"),
    ],
)
def test_a_changed_syn_table_is_refused_naming_the_file(edit, message, tmp_path, monkeypatch):
    good = np.load(io.BytesIO(gzip.decompress((SHARED / "mao2025-syn/syn3_c10.npy.gz").read_bytes())))
    _write(tmp_path, {"syn3_c10.npy": _npy(edit(good))})
    _only(monkeypatch, tmp_path)
    with pytest.raises(D.DatasetCorrupted, match=rf"'mao2025_syn'.*{re.escape(str(tmp_path))}.*{message}"):
        D.load_syn_counts(3, 10)


def test_syn_arguments_and_table_versus_array_calls_are_checked(iso):
    for kind in (2, "syn5", None, True, 3.0):
        with pytest.raises(ValueError, match="kind must be 3 or 4"):
            D.load_syn_counts(kind, 10)
    for c in (15, "10", None, 10.0):
        with pytest.raises(ValueError, match="c must be one of"):
            D.load_syn_counts(3, c)
    with pytest.raises(ValueError, match=r"set of arrays.*load_array\('mao2025_syn', part\).*load_syn_counts"):
        D.load("mao2025_syn")
    with pytest.raises(ValueError, match=r"is a table: use ldp.data.load\('heart'\)"):
        D.load_array("heart", "data")
    with pytest.raises(ValueError, match="part must be one of 'syn3_c10'"):
        D.load_array("mao2025_syn", "syn3_c15")
    with pytest.raises(D.DatasetUnavailable, match="regenerates them"):
        D.load_syn_counts(4, 30)
    table, source = D.load_or_standin(
        "mao2025_syn", lambda: np.zeros((30, 20_000), np.int64), "regenerated", part="syn4_c30"
    )
    assert not source.real and table.shape == (30, 20_000) and "regenerated" in source.message()
    with pytest.raises(ValueError, match="part must be given"):
        D.load_or_standin("mao2025_syn", lambda: None)
    with pytest.raises(ValueError, match="part must be None"):
        D.load_or_standin("heart", lambda: None, part="data")
    assert not D.is_available("mao2025_syn", "syn4_c30")


@_needs_shared_file("list_attr_celeba.txt.gz", "heart_disease_health_indicators_BRFSS2015.csv.gz")
def test_fetch_copies_celeba_heart_and_the_syn_tables_and_status_is_clean(iso, monkeypatch, capsys):
    if not (SHARED / "mao2025-syn").is_dir():
        pytest.skip("the SYN tables are not in the shared folder")
    monkeypatch.setenv("LDP_SHARED_DATASETS", str(SHARED))
    assert cli.main(["fetch", "--no-download", "celeba", "heart", "mao2025_syn"]) == 0
    assert (iso["env"] / "list_attr_celeba.txt.gz").is_file()
    assert (iso["env"] / "mao2025-syn" / "syn4_c50.npy.gz").is_file()  # the sub-folder is kept
    capsys.readouterr()
    assert cli.main(["status", "celeba", "heart", "mao2025_syn"]) == 0
    out = capsys.readouterr().out
    assert f"10 files in {iso['env'] / 'mao2025-syn'}" in out and "All datasets present and verified." in out


def test_fetch_never_downloads_celeba_or_the_syn_tables(iso, monkeypatch, capsys):
    import urllib.request

    def no_network(*a, **k):
        raise AssertionError("fetch tried to download")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    assert cli.main(["fetch", "celeba", "mao2025_syn"]) == 1
    out = capsys.readouterr().out
    assert "[manual]   celeba" in out and "no redistribution" in out and "never downloads it" in out
    assert "[manual]   mao2025_syn" in out and "Missing: celeba, mao2025_syn" in out


def test_celeba_is_never_tracked_or_vendored_and_is_git_ignored_in_the_data_directory():
    """CelebA's agreement forbids redistribution: no copy may enter the repository or the package."""
    git = ["git", "-C", str(REPO)]
    tracked = subprocess.run(git + ["ls-files"], capture_output=True, text=True, check=True).stdout.split()
    assert not [
        f
        for f in tracked
        if "list_attr_celeba" in f.lower()
        or "celeba" in Path(f).name.lower()
        and not f.endswith((".py", ".md", ".bib"))
    ]
    # the file's first data line, in any tracked file (a copy under another name)
    hits = subprocess.run(git + ["grep", "-l", "-E", "000001\\.jpg( +-?1){40}"], capture_output=True, text=True)
    assert hits.returncode == 1 and not hits.stdout, hits.stdout
    assert not DATASETS["celeba"].vendored and not list(VENDORED.glob("*celeba*"))
    for path in ("data/external/list_attr_celeba.txt.gz", "data/external/mao2025-syn/syn3_c10.npy.gz"):
        assert subprocess.run(git + ["check-ignore", "-q", path]).returncode == 0, f"{path} is not git-ignored"


# ---------------------------------------------------------------------------- configuration errors (issue 26)
def test_inspect_refuses_bad_directories_naming_the_argument(tmp_path):
    with pytest.raises(ValueError, match=r"dirs\[0\]='/nonexistent' does not exist"):
        D.inspect("nursery", dirs=["/nonexistent"])
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match=r"dirs\[1\]=.*afile' is not a directory"):
        D.inspect("nursery", dirs=[tmp_path, str(afile)])
    with pytest.raises(TypeError, match="dirs must be a list of directories, got the single str"):
        D.inspect("nursery", dirs=str(tmp_path))
    with pytest.raises(TypeError, match=r"dirs\[0\] must be a path .* got int"):
        D.inspect("nursery", dirs=[3])
    with pytest.raises(TypeError, match="dirs must be a list of directories, got int"):
        D.inspect("nursery", dirs=5)
    for dirs in ([str(tmp_path)], [tmp_path], (tmp_path,)):  # str and Path both work
        assert D.inspect("nursery", dirs=dirs).state == "missing"


@pytest.mark.parametrize("under", [False, True])
def test_a_data_dir_that_is_a_regular_file_is_refused(iso, monkeypatch, capsys, under):
    afile = iso["tmp"] / "afile"
    afile.write_text("not a directory")
    monkeypatch.setenv("LDP_DATA_DIR", str(afile / "sub" if under else afile))
    with pytest.raises(D.DataDirError, match="a regular file, not a directory"):
        D.data_home()
    with pytest.raises(D.DataDirError):
        D.load("nursery")  # a misconfiguration is told, not hidden behind a stand-in
    for cmd in ("fetch", "status"):
        assert cli.main([cmd]) == 2
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and err.startswith("error: $LDP_DATA_DIR=") and "regular file" in err
    assert afile.read_text() == "not a directory"


def _config_errors(iso) -> dict:
    afile = iso["tmp"] / "afile"
    afile.write_text("x")
    return {
        "LDP_DATA_DIR a file": ({"LDP_DATA_DIR": str(afile)}, ["fetch"], "regular file"),
        "LDP_DATA_DIR under a file": ({"LDP_DATA_DIR": str(afile / "d")}, ["fetch"], "lies under"),
        "LDP_SHARED_DATASETS a file": ({"LDP_SHARED_DATASETS": str(afile)}, ["fetch"], "LDP_SHARED_DATASETS"),
        "uncreatable data dir": ({"LDP_DATA_DIR": "/proc/ldp-no-such-dir"}, ["fetch"], "cannot create"),
        "unknown dataset": ({}, ["fetch", "no-such-dataset"], "unknown dataset"),
        "unknown command": ({}, ["bogus"], "usage"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "LDP_DATA_DIR a file",
        "LDP_DATA_DIR under a file",
        "LDP_SHARED_DATASETS a file",
        "uncreatable data dir",
        "unknown dataset",
        "unknown command",
    ],
)
def test_every_configuration_error_exits_2_with_one_line(case, iso, monkeypatch, capsys):
    env, argv, message = _config_errors(iso)[case]
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and message in err and not out, (out, err)


def test_fetch_with_a_file_as_data_dir_prints_no_traceback(tmp_path):
    import sys

    afile = tmp_path / "afile"
    afile.write_text("x")
    env = {**os.environ, "LDP_DATA_DIR": str(afile), "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-m", "ldp.data", "fetch"], capture_output=True, text=True, env=env, cwd=REPO)
    assert res.returncode == 2 and not res.stdout
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr and "regular file" in res.stderr


@pytest.mark.parametrize("damage", ["edited value", "damaged gzip"])
def test_a_corrupted_vendored_adult_says_reinstall_not_fetch(damage, iso, capsys):
    good = gzip.decompress((VENDORED / "adult.data.gz").read_bytes())
    bad = (
        gzip.compress(good.replace(b"39, State-gov", b"40, State-gov", 1), mtime=0)
        if damage == "edited value"
        else _bad_gzips()["bad CRC"]
    )
    (iso["pkg"] / "adult.data.gz").write_bytes(bad)
    (iso["pkg"] / "adult.test.gz").write_bytes((VENDORED / "adult.test.gz").read_bytes())
    with pytest.raises(D.DatasetCorrupted) as info:
        D.load("adult")
    msg = str(info.value)
    assert "reinstall the package" in msg and "`python -m ldp.data fetch` cannot restore" in msg
    assert "run `python -m ldp.data fetch` again" not in msg
    assert cli.main(["fetch", "--no-download", "adult"]) == 1
    out = capsys.readouterr().out
    assert "reinstall the package" in out and "A corrupted file is package data" in out
    (iso["env"] / "nursery.data").write_text("not the file")  # a file fetch owns: delete and fetch again
    with pytest.raises(D.DatasetCorrupted, match="delete the file and run `python -m ldp.data fetch` again"):
        D.load("nursery")
