"""Classes from a file (``population.class_map``): read and checked, the same in every
run of a world drawn from the laws (its agents named for an edge list), and the classes
of a data file without a class column; each bad map refused before any job."""

import math

import numpy as np
import pytest
from workflow_helpers import write_file

from colme.config import ConfigError
from colme.datafiles import DataFileError, read_class_map
from colme.expansion import expand_config
from colme.registry import ENGINES, stage_params


def write(tmp_path, text, name="classes.csv"):
    return write_file(tmp_path, text, name)


def test_a_class_map_is_read_in_the_agents_order(tmp_path):
    found = read_class_map(write(tmp_path, "agent,class\n10,1\n2,0\n9,2\n"))
    assert found.names == ("2", "9", "10")  # numerically: every name is an integer
    np.testing.assert_array_equal(found.classes, [0, 2, 1])
    labelled = read_class_map(write(tmp_path, "who,kind\nb,heat\na,cold\n"), {"agent": "who", "class": "kind"})
    assert (labelled.names, labelled.class_names) == (("a", "b"), ("cold", "heat"))
    np.testing.assert_array_equal(labelled.classes, [0, 1])


@pytest.mark.parametrize(("text", "message"), [
    ("agent,class\n", r"class map .*: the file has a header but no rows"),
    ("", r"class map .*: the file is empty"),
    ("agent,class\n" + "".join(f"a{i},c{i:03d}\n" for i in range(128)), r"128 classes; a world has at most 127"),
    ("agent,group\na,0\n", r"class map .*: missing column\(s\) \['class'\]; a class map has exactly the columns"),
    ("agent,class,extra\na,0,1\n", r"class map .*: unexpected column\(s\) \['extra'\]"),
    ("agent,class\na,0\nb,\n", r"class map .*, column 'class': row 2 \(1 in all\) empty"),
    ("agent,class\na,0\na,1\n", r"class map .*, column 'agent': agent 'a' has several rows \(rows 1, 2 \(2 in all\)\)"),
    ("agent,class\na,0\nb,2\n", r"column 'class': classes \[1\] have no agent"),
])
def test_a_bad_class_map_is_refused_naming_the_file_column_and_rows(tmp_path, text, message):
    with pytest.raises(DataFileError, match=message):
        read_class_map(write(tmp_path, text))


def law_figures(tmp_path, classes=None, graph=None, population=None, **figure):
    classes = classes if classes is not None else [a % 3 for a in range(12)]
    write(tmp_path, "agent,class\n" + "".join(f"n{a},{c}\n" for a, c in enumerate(classes)))
    population = {"means": [0.2, 0.4, 0.8], "class_map": {"path": str(tmp_path / "classes.csv")},
                  **(population or {})}
    entry = {"n_agents": 12, "degree": 4, "population": population, "t_max": 20, "runs": 3, "chunk_runs": 3,
             "grid": {"linear": 5, "log": 3}, **({"graph": graph} if graph else {})}
    return expand_config({"seed": 1, "figures": {
        "c": {"engine": "ccolme", **entry, "eps": [1, math.inf], "theta_k": [5, 5], **figure},
        "s": {"engine": "scalable", **entry, "eps": [1], "depths": [1], "stream": "c", **figure},
    }}).figures


def test_a_law_world_has_its_class_maps_classes_in_every_run(tmp_path):
    """Both engines draw the same instances (random regular graphs, one per run) on the
    map's classes, the same in every run; the choices say where the classes come from."""
    resolved = law_figures(tmp_path)
    drawn = {}
    for name in ("c", "s"):
        engine = ENGINES[resolved[name]["engine"]]
        drawn[name] = engine.instances(stage_params(resolved[name], "instances", 0, 3), "c", 0, 3)
        assert any("from the class map" in line for line in engine.figure_interpretations(resolved[name]))
    from colme.engines import population, population_record

    recorded = population_record(population(resolved["c"]))["class_map"]
    assert recorded["path"].endswith("classes.csv") and len(recorded["sha256"]) == 64
    for key in ("classes", "edges"):
        np.testing.assert_array_equal(drawn["c"][key], drawn["s"][key])
    in_order = [int(name[1:]) % 3 for name in sorted(f"n{a}" for a in range(12))]  # names sort as strings
    np.testing.assert_array_equal(drawn["c"]["classes"], np.tile(in_order, (3, 1)))
    assert not np.array_equal(drawn["c"]["edges"][0], drawn["c"]["edges"][1])  # graphs still drawn per run
    simulated = ENGINES["ccolme"].simulate(stage_params(resolved["c"], "simulate", 0, 3), drawn["c"], "c")
    assert np.isfinite(simulated["mse"]).all() and simulated["mse"].shape[0] == 3


def test_an_edit_of_the_class_map_reruns_its_figures(tmp_path):
    before = stage_params(law_figures(tmp_path)["c"], "instances", 0, 3)
    after = stage_params(law_figures(tmp_path, classes=[a % 2 for a in range(12)])["c"], "instances", 0, 3)
    assert before["class_map"]["sha256"] != after["class_map"]["sha256"]


def test_an_edge_lists_nodes_are_the_class_maps_agents(tmp_path):
    ring = "".join(f"n{a} n{(a + 1) % 12}\n" for a in range(12))
    write(tmp_path, ring, "ring.txt")
    resolved = law_figures(tmp_path, graph={"family": "edge_list", "path": str(tmp_path / "ring.txt")})
    engine = ENGINES["ccolme"]
    drawn = engine.instances(stage_params(resolved["c"], "instances", 0, 3), "c", 0, 3)
    order = sorted(f"n{a}" for a in range(12))  # the agents' order: their names, as strings
    expected = {tuple(sorted((order.index(f"n{a}"), order.index(f"n{(a + 1) % 12}")))) for a in range(12)}
    assert {tuple(sorted(edge)) for edge in drawn["edges"][0].tolist() if edge[0] >= 0} == expected
    write(tmp_path, ring + "n0 x7\n", "ring.txt")
    with pytest.raises(ConfigError, match=r"population\.class_map: edge list .*ring\.txt: node\(s\) \['x7'\]"):
        law_figures(tmp_path, graph={"family": "edge_list", "path": str(tmp_path / "ring.txt")})


@pytest.mark.parametrize(("classes", "population", "figure", "message"), [
    (None, {}, {"n_agents": 10},
     r"figures\.c\.n_agents=10, but the class map .* has 12 agents: set n_agents: 12"),
    (["x", "y"] * 6, {}, {},
     r"figures\.c\.population\.class_map: .* names the classes \['x', 'y'\]; .* integers 0 \.\. 2"),
    ([a % 4 for a in range(12)], {}, {}, r"names the classes \['0', '1', '2', '3'\]; .* integers 0 \.\. 2"),
    (None, {"sizes": [4, 4, 4]}, {}, r"give at most one of .*sizes and .*class_map \(given: \['sizes', 'class_map'\]"),
    (None, {"class_map": {"path": "missing.csv"}}, {}, r"class_map: class map 'missing\.csv' is not a file"),
])
def test_a_bad_class_map_in_a_law_world_is_refused_before_any_job(tmp_path, classes, population, figure, message):
    with pytest.raises(ConfigError, match=message):
        law_figures(tmp_path, classes, population=population, **figure)


def test_an_engine_without_worlds_refuses_a_class_map(tmp_path):
    write(tmp_path, "agent,class\n" + "".join(f"{a},{a % 3}\n" for a in range(12)))
    population = {"means": [0.2, 0.4, 0.8], "class_map": {"path": str(tmp_path / "classes.csv")}}
    with pytest.raises(ConfigError, match=r"population\.class_map: engine 'oracle' does not run on classes from a "
                                          r"class map \(yet\)"):
        expand_config({"seed": 2, "population": population, "figures": {"exact": {"engine": "oracle",
                                                                                  "n_agents": 12}}})


def file_figures(tmp_path, map_rows, class_column=False):
    lines = ["agent,t,value" + ",class" * class_column]
    lines += [f"a{a:02d},{t + 1},{(a % 3) + 0.5 * math.cos(a + 2 * t)}" + f",{a % 3}" * class_column
              for a in range(12) for t in range(6)]
    write(tmp_path, "\n".join(lines) + "\n", "world.csv")
    write(tmp_path, "agent,class\n" + "".join(map_rows))
    population = {"data": {"kind": "file", "path": str(tmp_path / "world.csv")},
                  "class_map": {"path": str(tmp_path / "classes.csv")}}
    return expand_config({"seed": 1, "figures": {"c": {
        "engine": "ccolme", "n_agents": 12, "degree": 4, "population": population, "t_max": 20, "runs": 2,
        "chunk_runs": 2, "grid": {"linear": 5, "log": 3}, "eps": [1], "theta_k": [5], "rules": ["oracle"]}}}).figures


def test_a_class_map_gives_a_data_files_agents_their_classes(tmp_path):
    resolved = file_figures(tmp_path, [f"a{a:02d},{'hot' if a % 4 else 'cold'}\n" for a in range(12)])
    engine = ENGINES["ccolme"]
    drawn = engine.instances(stage_params(resolved["c"], "instances", 0, 2), "c", 0, 2)
    np.testing.assert_array_equal(drawn["classes"], np.tile([0 if a % 4 == 0 else 1 for a in range(12)], (2, 1)))
    choices = engine.figure_interpretations(resolved["c"])
    assert any("2 classes from the class map" in line for line in choices)


@pytest.mark.parametrize(("rows", "class_column", "message"), [
    ([f"a{a:02d},0\n" for a in range(11)], False, r"classes\.csv has no row for agent\(s\) \['a11'\] \(1 in all\)"),
    ([f"a{a:02d},0\n" for a in range(13)], False, r"world\.csv has no row for agent\(s\) \['a12'\] \(1 in all\)"),
    ([f"a{a:02d},0\n" for a in range(12)], True, r"has a class column \('class'\) and a class map .* keep one"),
])
def test_a_class_map_that_does_not_fit_its_data_file_is_refused(tmp_path, rows, class_column, message):
    with pytest.raises(ConfigError, match=r"figures\.c\.population\.data: .*" + message):
        file_figures(tmp_path, rows, class_column)
