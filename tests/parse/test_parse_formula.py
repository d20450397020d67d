"""The formula of an API page (API.formula): where a page's formula begins and where it ends in its
功能说明 section. The docstrings print it, and the relation reader looks in it for products."""

from __future__ import annotations

from tests.parse.parse_helpers import PROTOTYPE, page


def formula_of(function_section: str) -> str:
    parsed = page(f"# aclnnFoo\n\n## 功能说明\n\n{function_section}\n{PROTOTYPE}")
    (api,) = parsed.apis
    return api.formula


def test_the_example_after_the_formula_is_not_part_of_it():
    formula = formula_of("""\
- 接口功能：复制。
- 计算公式：

  $$
  out_{i} = self_{i}
  $$

- 示例：

  ```text
  输入self为：tensor([[1, 2]])
  ```
""")
    assert formula == "$$\nout_{i} = self_{i}\n$$"


def test_prose_under_the_formula_item_is_kept():
    formula = formula_of("""\
- 计算公式：

  $$
  out = input * vec
  $$

  其中$input$为n*m的二维张量。

- 示例：a = mv(b, c)
""")
    assert formula == "$$\nout = input * vec\n$$\n其中$input$为n*m的二维张量。"


def test_every_formula_part_is_kept_and_notes_after_them_are_not():
    formula = formula_of("""\
- 计算公式：
- 先计算gelu
  - approximate = tanh

  $$
  a = tanh(x)
  $$
- 再量化
- quant_mode = static

  $$
  y = round(a)
  $$
- 计算公式（BOOL类型情况）：out = self
- 实现说明：内部经LU分解求行列式。
- 使用场景：训练。
""")
    assert "$$\na = tanh(x)\n$$" in formula and "$$\ny = round(a)\n$$" in formula
    assert "- 再量化" in formula  # between two formulas: the formula's own wording
    assert "计算公式（BOOL类型情况）：out = self" in formula
    assert "实现说明" not in formula and "使用场景" not in formula


def test_a_nested_formula_item_ends_at_its_sibling():
    formula = formula_of("""\
- 接口功能：
  - 计算公式：$out = self + 1$
  - 示例：out = foo(self)
""")
    assert formula == "$out = self + 1$"


def test_without_a_mark_the_display_formulas_are_the_formula():
    formula = formula_of("""\
提取子张量，假设N为长度：

$$
start = min(start, N)
$$

转换后：

$$
end = min(end, N)
$$
""")
    assert formula == "$$\nstart = min(start, N)\n$$\n$$\nend = min(end, N)\n$$"
