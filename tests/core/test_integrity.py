"""Self-verifying results: instance and chunk files carry their maker; the table stage and the
DAG refuse a file made under other params, copied, renamed, cut short or corrupt."""

import shutil
import zipfile

import pytest

from colme.config import load_schema, resolve_figure
from colme.expansion import validate_config
from colme.integrity import (
    StaleResultError,
    differences,
    digest,
    load_simulation,
    path_digest,
    problem,
    quarantine,
    read_maker,
)
from colme.registry import stage_params
from colme.stages import makers, result_path, write_chunk, write_instances

FIGURE = {"n_agents": 12, "degree": 3, "eps": [1], "theta_k": [6], "t_max": 30, "runs": 4,
          "chunk_runs": 2, "grid": {"linear": 5, "log": 3}}


def settings_for(seed=5, figure="small", population=None, **changes):
    config = {"seed": seed, "figures": {figure: {**FIGURE, **changes}}}
    if population:
        config["population"] = population
    validated = validate_config(config, load_schema())
    return resolve_figure(validated, figure)


def build(root, settings, figure="small"):
    """Instance and chunk files of every run range, as the workflow writes them."""
    paths = {"instances": [], "chunks": []}
    for start, stop in ((0, 2), (2, 4)):
        made_by = makers(figure, settings, start, stop)
        for kind in paths:
            paths[kind].append(result_path(kind, figure, start, stop, made_by[kind], root=root))
        write_instances(made_by["instances"], paths["instances"][-1])
        write_chunk(made_by["chunks"], paths["instances"][-1], paths["chunks"][-1])
    return paths


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("results"), settings_for())


def test_paths_carry_the_digest_of_their_maker(built):
    paths = built
    settings = settings_for()
    made_by = makers("small", settings, 0, 2)
    assert path_digest(paths["chunks"][0]) == digest(made_by["chunks"]) != digest(made_by["instances"])
    assert read_maker(paths["chunks"][0]) == made_by["chunks"]
    assert digest(made_by["instances"]) in made_by["chunks"]  # a chunk names its instance file
    # what determines the numbers moves the path; what does not (a title) keeps it
    assert makers("small", settings_for(population={"sigma": 0.3}), 0, 2)["chunks"] != made_by["chunks"]
    assert makers("small", settings_for(population={"sigma": 0.3}), 0, 2)["instances"] == made_by["instances"]
    assert makers("small", settings_for(title="another"), 0, 2) == made_by
    assert makers("small", settings_for(seed=6), 0, 2)["instances"] != made_by["instances"]


def test_the_table_stage_reads_verified_files(built):
    paths = built
    sims, instances = load_simulation("small", stage_params(settings_for(), "table"), paths["chunks"],
                                      paths["instances"])
    assert [int(s["runs"][0]) for s in sims] == [0, 2] and "made_by" not in sims[0]
    assert instances[1]["classes"].shape == (2, 12)


def test_chunks_of_another_seed_or_figure_are_refused_with_the_differing_keys(built, tmp_path):
    paths = built
    other = build(tmp_path, settings_for(seed=6))
    table = stage_params(settings_for(), "table")
    with pytest.raises(StaleResultError, match=r"runs0-2-.*made under other params \(differing keys: seed\)"):
        load_simulation("small", table, other["chunks"], paths["instances"])
    renamed = build(tmp_path / "renamed", settings_for(), figure="another")
    with pytest.raises(StaleResultError, match="made for figure 'another', not 'small'"):
        load_simulation("small", table, paths["chunks"], renamed["instances"])
    # a chunk copied over the path of this figure's chunk: its maker no longer matches the name
    copied = tmp_path / "copied" / paths["chunks"][0].split("/")[-1]
    copied.parent.mkdir()
    shutil.copy(other["chunks"][0], copied)
    with pytest.raises(StaleResultError, match="does not hash to the digest in its name"):
        load_simulation("small", table, [str(copied)], paths["instances"])
    expected = read_maker(paths["chunks"][0])
    assert "made under other params (differing keys: instances, params.seed)" in problem(copied, expected)


def test_a_chunk_must_simulate_one_of_the_tables_instance_files(built, tmp_path):
    paths = built
    table = stage_params(settings_for(), "table")
    with pytest.raises(StaleResultError, match=r"simulates instance file .* not one of this table's"):
        load_simulation("small", table, paths["chunks"], paths["instances"][1:])


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_cut_short_or_corrupt_files_are_detected_and_quarantined(built, tmp_path, damage):
    paths = built
    victim = tmp_path / "results" / "chunks" / "small" / paths["chunks"][1].split("/")[-1]
    victim.parent.mkdir(parents=True)
    shutil.copy(paths["chunks"][1], victim)
    expected = read_maker(victim)
    data = bytearray(victim.read_bytes())
    if damage == "truncate":
        victim.write_bytes(data[: len(data) // 2])
        reason = "not a complete archive"
    else:
        with zipfile.ZipFile(victim) as archive:  # a byte inside the first member's data
            info = archive.infolist()[0]
        offset = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
        data[offset] ^= 0xFF
        victim.write_bytes(bytes(data))
        reason = "fails its CRC"
    found = problem(victim, expected)
    assert reason in found
    moved = quarantine(victim, found, root=tmp_path / "results")
    assert not victim.exists() and moved == tmp_path / "results/quarantine/chunks/small" / victim.name
    assert reason in moved.with_name(moved.name + ".reason.txt").read_text()
    assert problem(victim, expected) is None  # gone: the DAG will make it again


def test_differences_name_nested_keys():
    assert differences('{"params":{"seed":5,"eps":[1]},"figure":"a"}',
                       '{"params":{"seed":6,"eps":[1]},"figure":"a","instances":"x"}') == [
        "instances", "params.seed"]
