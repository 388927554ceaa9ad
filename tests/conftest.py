import pytest


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The tiny workflow run locally once, as the reference of the end-to-end tests."""
    from workflow_helpers import snakemake

    workdir = tmp_path_factory.mktemp("local")
    snakemake(workdir, "--cores", "2")
    return workdir
