"""Page formats other than the aclnn Markdown page: READMEs, web dumps, saved HTML, stubs, and
pages that document several APIs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.ir import DType, Level, PageKind
from gen.parse import parse_file
from gen.merge import merge_readmes
from tests.parse.parse_helpers import codes, page

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pages"


def _without_lines(value):
    """The IR as data, without what differs between a page and its rendering: lines and source."""
    if isinstance(value, dict):
        return {k: _without_lines(v) for k, v in value.items() if k not in ("line", "example_line", "source")}
    if isinstance(value, list):
        return [_without_lines(v) for v in value]
    return value


@pytest.mark.parametrize("markdown,html", [
    (ROOT / "op_docs" / "leaky_relu_backward.md", FIXTURES / "leaky_relu_backward.html"),
    (FIXTURES / "xlogy_scalar_other.md", FIXTURES / "xlogy_scalar_other.html"),
])
def test_saved_html_page_gives_the_ir_of_its_markdown(markdown, html):
    md_page, html_page = parse_file(markdown).to_dict(), parse_file(html).to_dict()
    md_diags, html_diags = md_page.pop("diagnostics"), html_page.pop("diagnostics")
    assert _without_lines(html_page) == _without_lines(md_page)
    assert sorted((d["level"], d["code"]) for d in html_diags) == sorted((d["level"], d["code"]) for d in md_diags)


def test_site_chrome_is_not_content():
    html = parse_file(FIXTURES / "leaky_relu_backward.html")
    # The footer declares a decoy aclnn function; only the page's API is read.
    assert [a.name for a in html.apis] == ["aclnnLeakyReluBackward"]


def test_multi_api_page_gives_each_api_its_own_params_and_errors():
    p = parse_file(FIXTURES / "xlogy_scalar_other.md")
    assert [a.name for a in p.apis] == ["aclnnXLogYScalarOther", "aclnnInplaceXLogYScalarOther"]
    first, inplace = p.apis
    assert [x.name for x in first.params] == ["self", "other", "out"]
    assert [x.name for x in inplace.params] == ["selfRef", "other"]
    assert [e.code for e in first.errors] == [161001, 161002, 161002, 161002]
    assert [e.code for e in inplace.errors] == [161001, 161002, 161002]
    assert inplace.param("selfRef").dtypes == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)


def test_stub_page_is_an_error_with_no_api():
    p = page("# aclnnBar\n\n本文档内容正按全新接口模板整改中，将陆续上线，如需使用该接口请访问昇腾社区对应的aclnnBar章节。\n")
    (stub,) = [d for d in p.diagnostics if d.code == "stub-page"]
    assert stub.level is Level.ERROR and p.apis == ()


def test_reference_page_is_not_an_api_page():
    p = page("# aclnn返回码\n\n| 状态码名称 | 状态码值 |\n|---|---|\n| ACLNN_SUCCESS | 0 |\n")
    assert "not-an-api-page" in codes(p) and p.apis == ()


def test_readme_from_its_file_name_and_its_links():
    p = page("# Foo\n\n## 调用说明\n\n| 调用方式 | 样例代码 | 说明 |\n|---|---|---|\n"
             "| aclnn接口 | [test.cpp](examples/test.cpp) | 通过[aclnnFoo](docs/aclnnFoo.md)接口方式调用。 |\n",
             source="ops/foo/README.md")
    assert p.kind is PageKind.OP_README
    assert [(l.api, l.doc) for l in p.links] == [("aclnnFoo", "docs/aclnnFoo.md")]


def test_merge_folds_a_readme_into_its_linked_page():
    readme = parse_file(ROOT / "op_docs" / "leaky_relu_grad.README.md")
    web = parse_file(ROOT / "op_docs" / "leaky_relu_backward.web.txt")
    (merged,) = merge_readmes([readme, web])
    assert merged.source == web.source
    assert len(merged.products) == 5  # the dump's three, and the README's 950 and A3
    assert merged.apis[0].param("gradOutput").formats == ("ND",)
    assert "merged-from-readme" in codes(merged)


def test_merge_keeps_a_readme_whose_page_is_absent():
    readme = parse_file(ROOT / "op_docs" / "leaky_relu_grad.README.md")
    assert merge_readmes([readme]) == [readme]


def test_english_page():
    p = page("""\
        # aclnnFoo

        ## Supported Products

        | Product | Supported |
        |---|---|
        | <term>Atlas training series products</term> | √ |

        ## Prototype

        ```Cpp
        aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
        aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
        ```

        ## aclnnFooGetWorkspaceSize

        - **Parameters:**

          - **self** (aclTensor*, input): The data type can be FLOAT16 or FLOAT32. Empty tensors are supported.
          - **out** (aclTensor*, output): The data type is the same as that of **self**.

        - **Returns:**

          **aclnnStatus**: status code.

          ```
          161001 (ACLNN_ERR_PARAM_NULLPTR): 1. The self or out is a null pointer.
          ```
        """)
    api = p.apis[0]
    assert api.param("self").dtypes == (DType.FLOAT16, DType.FLOAT)
    assert api.param("out").dtypes == (DType.FLOAT16, DType.FLOAT)
    assert api.param("self").empty_tensor is True
    assert [e.code for e in api.errors] == [161001]
    assert p.products[0].supported is True


def test_web_dump_links_lost_is_one_diagnostic():
    p = parse_file(ROOT / "op_docs" / "leaky_relu_backward.web.txt")
    assert [d.code for d in p.diagnostics].count("links-lost") == 1


def test_crlf_bom_and_zero_width_do_not_change_the_ir():
    clean = (ROOT / "op_docs" / "hardsigmoid_backward.md").read_bytes()
    dirty = b"\xef\xbb\xbf" + clean.replace(b"\n", b"\r\n").replace("参数名".encode(), "参\u200b数名".encode())
    from gen.parse import parse_bytes

    a, b = parse_bytes(clean, "x.md"), parse_bytes(dirty, "x.md")
    assert a.apis == b.apis and a.products == b.products


def test_merge_leaves_a_dtype_argument_the_integer_its_attribute_is_stored_in():
    # An op README's 数据类型 column gives an attribute naming a dtype as the integer the kernel stores
    # it in (SignBitsUnpack's experimental README: "dtype | int64"); read as the dtypes the aclDataType
    # argument names, it refused the page example's ACL_FLOAT. A README listing dtypes still fills it.
    api = page("""\
        # aclnnFoo

        ```Cpp
        aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
        aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
        ```

        ## aclnnFooGetWorkspaceSize

        - self（aclTensor*, 计算输入）：数据类型支持UINT8。
        - dtype（aclDataType, 入参）：表示输出的数据类型。
        - out（aclTensor*, 计算输出）：数据类型支持FLOAT16、FLOAT。
        """)

    def readme(dtype_cell: str):
        return page(f"""\
            # Foo

            ## 参数说明

            <table>
            <tr><th>参数名</th><th>输入/输出/属性</th><th>描述</th><th>数据类型</th><th>数据格式</th></tr>
            <tr><td>self</td><td>输入</td><td>输入。</td><td>UINT8</td><td>ND</td></tr>
            <tr><td>dtype</td><td>属性</td><td>输出的数据类型。</td><td>{dtype_cell}</td><td>-</td></tr>
            <tr><td>out</td><td>输出</td><td>输出。</td><td>FLOAT16、FLOAT</td><td>ND</td></tr>
            </table>

            ## 调用说明

            | 调用方式 | 调用样例 | 说明 |
            |---|---|---|
            | aclnn调用 | [test_aclnn_foo](./examples/test_aclnn_foo.cpp) | 通过[aclnnFoo](./docs/aclnnFoo.md)接口方式调用Foo算子。 |
            """, source="README.md")

    stored, listed = readme("int64"), readme("FLOAT16、FLOAT")
    assert stored.kind is PageKind.OP_README and stored.params
    (merged,) = merge_readmes([stored, api])
    assert merged.apis[0].param("dtype").dtypes == ()
    (merged,) = merge_readmes([listed, api])
    assert merged.apis[0].param("dtype").dtypes == (DType.FLOAT16, DType.FLOAT)
