"""Product lists: tables, bullets with marks, and the bare list of the web dump."""

from gen.ir import Soc
from tests.parse.parse_helpers import page


def products(markdown):
    return [(p.name, p.supported, p.soc) for p in page(markdown).products]


def test_product_table():
    assert products("# aclnnFoo\n\n## 产品支持情况\n\n| 产品 | 是否支持 |\n|---|---|\n"
                    "| <term>Atlas 推理系列产品</term> | √ |\n| <term>Atlas 训练系列产品</term> | × |\n") == [
        ("Atlas 推理系列产品", True, Soc.ASCEND310P), ("Atlas 训练系列产品", False, Soc.ASCEND910)]


def test_product_bullets_with_marks():
    assert products("# aclnnFoo\n\n## 产品支持情况\n\n<!-- npu -->\n- <term>Ascend 950PR/Ascend 950DT</term>：不支持\n"
                    "- <term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>：支持\n") == [
        ("Ascend 950PR/Ascend 950DT", False, Soc.ASCEND950),
        ("Atlas A3 训练系列产品/Atlas A3 推理系列产品", True, Soc.ASCEND910_93)]


def test_english_product_table():
    assert products("# aclnnFoo\n\n## Supported Products\n\n| Product | Supported |\n|---|---|\n"
                    "| <term>Atlas training series products</term> | √ |\n") == [
        ("Atlas training series products", True, Soc.ASCEND910)]


def test_unknown_product_is_kept_and_noted():
    p = page("# aclnnFoo\n\n## 产品支持情况\n\n| 产品 | 是否支持 |\n|---|---|\n| Atlas 未来产品X | √ |\n")
    assert [(x.name, x.soc) for x in p.products] == [("Atlas 未来产品X", None)]
    assert "unknown-product" in {d.code for d in p.diagnostics}
