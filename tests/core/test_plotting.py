"""Figure styles: a curve never looks like Local or Ideal, or like a line style's legend entry."""

import pytest
from matplotlib.colors import to_rgb

from colme.plotting import BENCHMARK_STYLES, STYLE_KEY_COLOUR, palette


def _distance(a, b) -> float:
    return sum((x - y) ** 2 for x, y in zip(to_rgb(a), to_rgb(b), strict=True)) ** 0.5


@pytest.mark.parametrize("count", range(1, 41))
def test_palette_colours_are_distinct_and_never_black_or_grey(count):
    colours = list(palette(range(count)).values())
    assert len(colours) == count
    for colour in colours:  # Local, Ideal and the style keys are black or grey: chroma 0
        red, green, blue = to_rgb(colour)
        assert max(red, green, blue) - min(red, green, blue) > 0.15, f"{colour} is close to a grey"
    # distinct as long as the palette has enough colours (17 beyond 9 values)
    assert len(set(colours)) == min(count, 9 if count <= 9 else 17)


def test_local_and_ideal_differ_from_each_other_and_from_every_engine_style():
    """Local and Ideal share black: their dashes tell them apart."""
    (local_colour, local_line), (ideal_colour, ideal_line) = BENCHMARK_STYLES["local"], BENCHMARK_STYLES["ideal"]
    assert local_colour == ideal_colour and local_line != ideal_line
    assert _distance(local_colour, STYLE_KEY_COLOUR) > 0.3
    for colour in (local_colour, STYLE_KEY_COLOUR):
        red, green, blue = to_rgb(colour)
        assert red == green == blue
