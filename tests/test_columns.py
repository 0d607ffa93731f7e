"""Print tables' column widths: every column as wide as its longest word, the rest shared by need."""

from reportgen.render import columns


def test_a_long_name_gets_its_width_and_a_short_column_gives_way():
    rows = [["cpu", "1×1×10×10×64×64", "padding", "scaled_dot_product_attention", "2.4e-07", "0.021"]] * 5
    shares = columns.widths(["device", "shape", "mask", "implementation", "max |Δ|", "of tolerance"], rows)
    assert abs(sum(shares) - 100) < 0.05 and len(shares) == 6
    assert shares[3] == max(shares) and shares[0] < 100 / 6
    line = columns.LINE * shares[3] / 100
    assert line >= len("scaled_dot_product_attention")  # no break inside the name


def test_when_nothing_fits_on_a_line_columns_keep_their_words():
    words = ["a " * 80, "b " * 80]
    shares = columns.widths(["x", "unbreakable_header_word"], [words])
    assert columns.LINE * shares[1] / 100 >= len("unbreakable_header_word")


def test_plain_notation_counts_as_it_prints():
    """d_k prints as dₖ: two characters, not three; $…$ is not printed."""
    assert columns.widths(["$d_k$", "x"], [["d_k", "x"]]) == columns.widths(["dₖ", "x"], [["dₖ", "x"]])


def test_a_number_with_digit_groups_is_one_word():
    """12 345 678 prints with no-break spaces: split, it would read as two numbers."""
    shares = columns.widths(["steps", "note"], [["12 345 678", "word " * 80]])
    assert columns.LINE * shares[0] / 100 >= len("12 345 678")


def test_every_column_keeps_a_share_and_the_shares_sum_to_100():
    cases = [
        (list("abcdefgh"), [["x" * 5, "x" * 300, "x" * 300, "xx", "x" * 300, "x" * 600, "x" * 5, "x"]]),
        (["a", "b", "c"], [["x" * 5329, "y", "z"]]),
        (["only"], []),
        (["a", "b"], [[]]),
        (["a", "b"], [["", ""]]),
    ]
    for header, rows in cases:
        shares = columns.widths(header, rows)
        assert len(shares) == len(header) and min(shares) >= 3.0 and abs(sum(shares) - 100) < 1e-6, shares
    assert columns.widths([], []) == []
