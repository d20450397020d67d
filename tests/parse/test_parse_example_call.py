"""Recovering the GetWorkspaceSize call of a page's example, with its data."""

from gen.ir import Direction, DType, ParamKind
from gen.parse.extractors.example_call import extract_example_call
from tests.support.factories import make_api, make_param

API = make_api("aclnnFoo", params=(
    make_param("self"), make_param("alpha", kind=ParamKind.SCALAR),
    make_param("flag", kind=ParamKind.BOOL), make_param("out", direction=Direction.OUT)))

EXAMPLE = """
  std::vector<int64_t> selfShape = {2, 2};
  std::vector<float> selfHostData = {1, -2.5f, 3e1, .5};
  std::vector<int64_t> outShape = {2, 2};
  std::vector<float> outHostData(4, 0);
  float alphaValue = 0.25f;  // the slope
  ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_BF16, &self);
  alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
  /* aclnnFooGetWorkspaceSize(decoy, ...) in a comment is not the call */
  ret = aclnnFooGetWorkspaceSize(self, alpha, false, out, &workspaceSize, &executor);
"""


def test_tensor_scalar_and_literal_arguments_are_traced():
    call = extract_example_call(EXAMPLE, API)
    self_arg = call.arg("self")
    assert (self_arg.dtype, self_arg.shape, self_arg.values) == (DType.BFLOAT16, (2, 2), (1.0, -2.5, 30.0, 0.5))
    assert call.arg("alpha").values == (0.25,)
    assert call.arg("flag").values == (0.0,)


def test_hexadecimal_data_is_traced_as_the_integers_it_writes():
    # aclnnAddRmsNormCast's FLOAT16 bits in a std::vector<short>: 0x3C0F keeps its trailing F.
    code = EXAMPLE.replace("{1, -2.5f, 3e1, .5}", "{0x0000, 0x3C00, 0x3C0F, 0x4000u}")
    assert extract_example_call(code, API).arg("self").values == (0.0, 15360.0, 15375.0, 16384.0)


def test_an_argument_that_cannot_be_traced_is_left_out():
    # outHostData is built by a constructor, not a braced list: no data to recover.
    assert extract_example_call(EXAMPLE, API).arg("out") is None


def test_no_call_no_example_call():
    assert extract_example_call("int main() { return 0; }", API) is None


# The shapes of examples that compute what they pass, each from a page of the corpus.
COMPUTED = make_api("aclnnFoo", params=(
    make_param("self"), make_param("weight"), make_param("size", kind=ParamKind.INT_ARRAY),
    make_param("dtype", kind=ParamKind.DTYPE, c_type="aclDataType"), make_param("out", direction=Direction.OUT)))


def computed_call(body: str, call: str = "self, weight, size, ACL_DOUBLE, out"):
    return extract_example_call(body + f"\n  ret = aclnnFooGetWorkspaceSize({call}, &workspaceSize, &executor);", COMPUTED)


def test_sizes_and_data_computed_from_variables_are_read():
    # aclnnCdistBackward's `(B * P * Q, 1)`, aclnnArange's static_cast, a value-initialized vector.
    call = computed_call("""
  int64_t B = 2; int64_t P = 3;
  int64_t n = static_cast<int64_t>(ceil(5.0f / B));
  std::vector<int64_t> selfShape = {B, P};
  std::vector<float> selfHostData(B * P, 1.5f);
  std::vector<int64_t> outShape = {n};
  std::vector<float> outHostData(n);
  std::vector<int64_t> sizeData = {n, 7 / 2, -7 % 3};
  aclIntArray* size = aclCreateIntArray(sizeData.data(), 2);
  ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);""")
    assert (call.arg("self").shape, call.arg("self").values) == ((2, 3), (1.5,) * 6)
    assert (call.arg("out").shape, call.arg("out").values) == ((3,), (0.0,) * 3)
    assert call.arg("size").values == (3.0, 3.0)  # the first 2 values; C's integer division
    assert call.arg("dtype").dtype is DType.DOUBLE


def test_what_a_function_computes_is_not_read():
    deep = "(" * 300 + "1" + ")" * 300  # past the parser's nesting: unread, never an exception
    call = computed_call(f"""
  std::vector<int64_t> selfShape = {{2}};
  std::vector<float> selfHostData = GenerateRandomFloats(2);
  int64_t m = rand();
  std::vector<float> weightHostData(m, 1);
  int64_t nested = {deep};
  std::vector<int64_t> weightShape = {{NAN}};
  ret = CreateAclTensor(selfHostData, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
  ret = CreateAclTensor(selfShape, weightShape, &weightAddr, aclDataType::ACL_FLOAT, &weight);""")
    assert call.arg("self") is None and call.arg("weight") is None


def test_a_vector_the_program_changes_before_the_call_is_not_read():
    # aclnnReflectionPad3dBackward fills its zeros in a loop; a result copied back after the call is no matter.
    call = extract_example_call("""
  std::vector<int64_t> selfShape = {2};
  std::vector<float> selfHostData(2);
  for (int i = 0; i < 2; i++) { selfHostData[i] = i; }
  std::vector<float> outHostData(2);
  ret = CreateAclTensor(selfHostData, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
  ret = CreateAclTensor(outHostData, selfShape, &outAddr, aclDataType::ACL_FLOAT, &out);
  ret = aclnnFooGetWorkspaceSize(self, weight, size, ACL_DOUBLE, out, &workspaceSize, &executor);
  aclrtMemcpy(outHostData.data(), 8, outAddr, 8, ACL_MEMCPY_DEVICE_TO_HOST);""", COMPUTED)
    assert call.arg("self") is None and call.arg("out").values == (0.0, 0.0)


def test_tensors_made_in_a_helper_and_with_a_format_are_read():
    # aclnnClampMax's PrepareInputAndOutput(..., aclTensor** self) and aclnnAvgPool2dBackward's format.
    call = computed_call("""
  std::vector<int64_t> selfShape = {2};
  std::vector<float> selfHostData = {1, 2};
  auto ret = CreateAclTensor(selfHostData, selfShape, selfDeviceAddr, aclDataType::ACL_FLOAT16, self);
  std::vector<float> weightHostData({1, 2});
  aclDataType weightType = ACL_INT32;
  ret = CreateAclTensor<float>(weightHostData, selfShape, &weightAddr, weightType, &weight, aclFormat::ACL_FORMAT_NCHW);""")
    assert call.arg("self").values == (1.0, 2.0)
    assert (call.arg("weight").values, call.arg("weight").dtype) == ((1.0, 2.0), DType.INT32)


def test_arrays_of_c_arrays_of_a_variable_and_of_a_helper_are_read():
    for made in ("bool sizeData[3] = {true, false, true};\n  size = aclCreateIntArray(&(sizeData[0]), 2);",
                 "bool sizeData[3] = {true, false, true};\n  size = aclCreateIntArray(sizeData, 2);",
                 "int64_t one = 1; int64_t zero = 0;\n  std::vector<int64_t> sizeData = {one, zero};\n"
                 "  CreateIntArray(sizeData, &size);"):
        call = computed_call("""
template <typename T>
int CreateIntArray(const std::vector<T>& hostData, aclIntArray** array) {
  auto size = hostData.size();
  *array = aclCreateIntArray(hostData.data(), hostData.size());
}
  """ + made)
        assert call.arg("size").values == (1.0, 0.0), made
    assert computed_call("int64_t v = 4;\n  size = aclCreateIntArray(&v, 1);").arg("size").values == (4.0,)


def test_a_pointer_declared_null_and_never_made_is_passed_null():
    call = computed_call("""
  aclTensor* weight = nullptr;
  aclTensor* self = nullptr;
  Prepare(&self);
  auto dtype = aclDataType::ACL_INT32;""", call="self, weight, size, dtype, out")
    assert call.null_params == ("weight",)
    assert call.arg("dtype").dtype is DType.INT32


def test_a_tensor_list_is_read_as_its_tensors():
    api = make_api("aclnnFoo", params=(make_param("x", kind=ParamKind.TENSOR_LIST, c_type="const aclTensorList*"),
                                       make_param("out", direction=Direction.OUT)))
    call = extract_example_call("""
  std::vector<int64_t> shape = {2};
  std::vector<float> aHostData = {1, 2};
  std::vector<int32_t> bHostData = {3, 4};
  ret = CreateAclTensor(aHostData, shape, &aAddr, aclDataType::ACL_FLOAT, &a);
  ret = CreateAclTensor(bHostData, shape, &bAddr, aclDataType::ACL_INT32, &b);
  std::vector<aclTensor*> tempInput{a, b};
  aclTensorList* list = aclCreateTensorList(tempInput.data(), tempInput.size());
  ret = aclnnFooGetWorkspaceSize(list, out, &workspaceSize, &executor);""", api)
    members = call.arg("x").members
    assert [(m.dtype, m.shape, m.values) for m in members] == [(DType.FLOAT, (2,), (1.0, 2.0)), (DType.INT32, (2,), (3.0, 4.0))]


def test_a_scalar_list_is_read_as_its_scalars():
    api = make_api("aclnnFoo", params=(make_param("scalars", kind=ParamKind.SCALAR_LIST, c_type="const aclScalarList*"),))
    call = extract_example_call("""
  float v1 = 1.5f; int64_t v2 = 2;
  a = aclCreateScalar(&v1, aclDataType::ACL_FLOAT);
  b = aclCreateScalar(&v2, aclDataType::ACL_INT64);
  std::vector<aclScalar*> temp{a, b};
  aclScalarList* list = aclCreateScalarList(temp.data(), temp.size());
  ret = aclnnFooGetWorkspaceSize(list, &workspaceSize, &executor);""", api)
    assert [(m.dtype, m.values) for m in call.arg("scalars").members] == [(DType.FLOAT, (1.5,)), (DType.INT64, (2.0,))]


def test_a_string_is_read_from_its_variable_or_literal():
    api = make_api("aclnnFoo", params=(make_param("mode", kind=ParamKind.STRING, c_type="char*"),
                                       make_param("layout", kind=ParamKind.STRING, c_type="char*")))
    call = extract_example_call("""
  char approximate[] = "tanh";
  ret = aclnnFooGetWorkspaceSize(approximate, "BSND", &workspaceSize, &executor);""", api)
    assert (call.arg("mode").text, call.arg("layout").text) == ("tanh", "BSND")


def _strip_comments_by_characters(code: str) -> str:
    """The character loop strip_comments replaced (a fifth of the parser's time): its reference."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if c == '"':
            j = i + 1
            while j < n and code[j] != '"' and code[j] != "\n":
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        elif code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_strip_comments_keeps_strings_and_drops_comments_as_the_character_loop_did():
    import random

    from gen.parse.extractors.example_call import strip_comments

    rnd = random.Random(14)
    samples = ['printf("a // b /* c */");  // d\nx = 1; /* e\nf */ y', 'unterminated "str\\', "a /* open"]
    samples += ["".join(rnd.choice('"\\\n/* a\'') for _ in range(rnd.randint(0, 40))) for _ in range(5000)]
    assert [strip_comments(s) for s in samples] == [_strip_comments_by_characters(s) for s in samples]


def test_the_example_header_is_the_one_named_after_the_api():
    from gen.parse.example import example_header

    # aclnnQuantMatmulAllReduce's example: another operator's aclnnop/ header first, its own from the source tree.
    mc2 = '#include "aclnnop/aclnn_trans_matmul_weight.h"\n#include "../op_host/op_api/aclnn_quant_matmul_all_reduce.h"\n'
    assert example_header(mc2, "aclnnQuantMatmulAllReduce") == "aclnnop/aclnn_quant_matmul_all_reduce.h"
    # aclnnGemm's: its own header in a subdirectory of aclnnop/, kept as written.
    assert example_header('#include "aclnnop/level2/aclnn_gemm.h"\n', "aclnnGemm") == "aclnnop/level2/aclnn_gemm.h"
    # aclnnWeightQuantBatchMatmulV2's: aclnn_cast.h first, then its own.
    wqbmm = '#include "aclnnop/aclnn_cast.h"\n#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"\n'
    assert example_header(wqbmm, "aclnnWeightQuantBatchMatmulV2") == "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
    # None named after it: the first aclnnop/ header; none at all: no header.
    assert example_header('#include "aclnnop/aclnn_add.h"\n', "aclnnAdds") == "aclnnop/aclnn_add.h"
    assert example_header("#include <vector>\n", "aclnnFoo") == ""
