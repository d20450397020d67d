// The aclop bridge: an operator run by type name (aclopCompileAndExecute) is read as its CANN
// prototype gives it (inputs, outputs, attributes by name and type, constant inputs' host values)
// and run on the stream by the simulator's aclnn engines, called through libopapi's own entry
// points (aclnnXxxGetWorkspaceSize + aclnnXxx), so an aclop operator computes exactly what the
// aclnn API of the same operation computes. What the bridge does not model -- an operator type, an
// attribute value, a dtype, a private layout, a constant input held in device memory -- is a
// documented ACL_ERROR_* status with a message naming the operator and what it met, never success.
#ifndef ACLNN_SIM_OP_COMPILER_BRIDGE_H_
#define ACLNN_SIM_OP_COMPILER_BRIDGE_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "ascendcl/op_objects.h"

namespace aclsim::aclop {

// A plain (non-private) layout: the simulator's one list of them (aclnn_sim/entry.h).
bool PlainFormat(aclFormat format);

// "[2,3,4]": a shape or an integer list, for messages.
std::string ListText(const std::vector<int64_t>& values);
// The number of elements of a shape.
int64_t Elements(const std::vector<int64_t>& dims);
// The element strides of a contiguous (row-major) tensor of the shape.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims);

struct Operand {
  std::shared_ptr<OpTensorDesc> desc;
  std::shared_ptr<OpDataBuffer> buffer;
};

// torch_npu's placeholder for an optional input it leaves out (OpCommand's Input() without a tensor:
// dtype and layout undefined, no data).
inline bool Absent(const Operand& operand) {
  return operand.desc->dtype == ACL_DT_UNDEFINED && operand.desc->format == ACL_FORMAT_UNDEFINED;
}

// A byte-per-element dropout mask's length for `elements` elements: their count, or (flat, as
// torch_npu allocates npu_dropout_with_add_softmax's) that count rounded up to a multiple of 128.
inline bool ByteMaskLength(int64_t length, int64_t elements) {
  return length == elements || (elements > 0 && length == (elements + 127) / 128 * 128);
}

// What an attribute of a prototype holds: the OpAttrValue alternative aclopSetAttr* stores.
enum class AttrKind { kBool, kInt, kFloat, kString, kDataType, kListBool, kListInt, kListFloat, kListListInt };

struct AttrSpec {
  const char* name;
  AttrKind kind;
};

// One call of aclopCompileAndExecute(V2), its handles resolved.
class OpCall {
 public:
  std::string api;   // aclopCompileAndExecute or aclopCompileAndExecuteV2
  std::string type;  // the operator type
  std::vector<Operand> inputs, outputs;
  std::map<std::string, OpAttrValue> attrs;  // a copy, taken when the call starts
  aclrtStream stream = nullptr;

  // "aclopCompileAndExecute (Swish)": how every message of the call starts.
  std::string Where() const { return api + " (" + type + ")"; }
  // Sets the recent-error message (prefixed by Where()) and returns `status`.
  aclError Fail(aclError status, const std::string& what) const;
  // The call's inputs, outputs and attributes, for a message about a call the bridge refuses.
  std::string Signature() const;

  // An attribute's value: the prototype's default when the call does not set it. The kind was
  // checked against the operator's AttrSpec list before the operator ran.
  bool Bool(const char* name, bool fallback) const;
  int64_t Int(const char* name, int64_t fallback) const;
  float Float(const char* name, float fallback) const;
  // String also answers `fallback` for a string attribute torch_npu set as bool (Run's note).
  std::string String(const char* name, const std::string& fallback) const;
  std::vector<int64_t> Ints(const char* name, const std::vector<int64_t>& fallback = {}) const;
  bool Has(const char* name) const { return attrs.count(name) != 0; }
  // A string attribute that names one of `values` (the prototype's default `fallback` when unset):
  // its index in `values`, the number an aclnn API takes for it ("none", "mean", "sum" -> 0, 1, 2);
  // any other value fails the call naming it.
  aclError Choice(const char* name, const char* fallback, std::initializer_list<const char*> values,
                  int64_t* index) const;

  // The value of a value input (an integer tensor: a shape, a permutation, offsets), read from
  // aclSetTensorConst's copy, from the host memory of a tensor placed on the host, or from device
  // memory once the work queued before the call on its stream is done (as the device's kernel
  // reads it when it runs).
  aclError ConstInts(size_t input, const char* what, std::vector<int64_t>* values) const;
  // The same for a floating constant input (a scalar operand held as a host tensor).
  aclError ConstFloat(size_t input, const char* what, double* value) const;

  // The host bytes of value input `input`: its aclSetTensorConst copy, its host memory, or a copy of
  // its device memory read after the stream's earlier work (whose failure fails the call).
  aclError ConstBytes(size_t input, const char* what, const uint8_t** bytes, size_t* size) const;

  // Checks the numbers of inputs and outputs (ACL_ERROR_OP_INPUT_NOT_MATCH / _OUTPUT_NOT_MATCH).
  aclError Arity(size_t min_inputs, size_t max_inputs, size_t num_outputs) const;

 private:
  mutable std::map<size_t, std::vector<uint8_t>> device_values_;  // ConstBytes' copies of device memory, by input
};

// The shape an operator states for its output (an attribute or a value input) against the
// output's description: they must agree, as the device's shape inference checks (grad.cpp).
aclError SameShape(const OpCall& call, const char* what, const std::vector<int64_t>& stated);

// The aclnn objects a call builds, destroyed with it (aclnn keeps what it needs in its executor).
class AclnnObjects {
 public:
  explicit AclnnObjects(const OpCall& call) : call_(call) {}
  AclnnObjects(const AclnnObjects&) = delete;
  AclnnObjects& operator=(const AclnnObjects&) = delete;
  ~AclnnObjects();

  // An aclTensor over the operand's data buffer, in its dtype: contiguous in its shape, or in
  // `dims` (the same elements seen in another shape), whose dimensions it views in the order `perm`
  // when given (a transposed view: strides permuted, nothing moved). An operand held on the host is
  // viewed in a device copy. Null, with the error set, when the operand is in a private layout, its
  // shape is dynamic or its bytes do not fit its buffer.
  aclTensor* Tensor(const Operand& operand, const char* what);
  aclTensor* Tensor(const Operand& operand, const char* what, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& perm = {});
  // The operand's elements, held contiguous in the shape `dims`, seen through a view (shape,
  // strides and offset in elements).
  aclTensor* View(const Operand& operand, const char* what, const std::vector<int64_t>& view,
                  const std::vector<int64_t>& strides, int64_t offset, const std::vector<int64_t>& dims);
  // An aclTensor over the operand's data buffer in the layout the caller gave it: a private one
  // (FRACTAL_NZ, NC1HWC0) as its origin shape stored in that layout, a plain one as Tensor does.
  // Null, with the error set, when a private operand has no plain origin or its storage does not
  // fit its buffer.
  aclTensor* InLayout(const Operand& operand, const char* what);
  aclIntArray* Ints(const std::vector<int64_t>& values);
  aclBoolArray* Bools(const std::vector<bool>& values);  // an output mask
  aclScalar* Scalar(double value, aclDataType dtype);  // FLOAT or DOUBLE
  aclScalar* IntScalar(int64_t value);                  // INT64
  // A contiguous tensor of device memory the call's kernels write and nobody reads (an output the
  // aclnn API requires and the operator has not), freed when the objects go: after the kernels
  // that use it (aclrtFree waits for them).
  aclTensor* Scratch(aclDataType dtype, const std::vector<int64_t>& dims);

  // A list of tensors (aclCreateTensorList), owned with the call's objects.
  aclTensorList* List(const std::vector<aclTensor*>& tensors);

  aclError status() const { return status_; }

 private:
  // A device copy of an operand held on the host (a constant or a host tensor), owned as scratch.
  bool DeviceCopy(const Operand& operand, const char* what, Operand* on_device);
  // `bytes` of device memory freed with these objects; null (the status set, naming `what`) when none.
  void* DeviceMemory(size_t bytes, const std::string& what);

  const OpCall& call_;
  aclError status_ = ACL_SUCCESS;
  std::vector<aclTensor*> tensors_;
  std::vector<aclIntArray*> arrays_;
  std::vector<aclBoolArray*> bool_arrays_;
  std::vector<aclScalar*> scalars_;
  std::vector<aclTensorList*> lists_;
  std::vector<void*> scratch_;
};

// Looks up libopapi's aclnnXxxGetWorkspaceSize and aclnnXxx by name, runs phase 1 with `args`
// followed by the workspace and executor, then phase 2 on the call's stream. Phase1 is the API's
// phase-1 function type (ops.cpp writes each out and checks it against the generated prototype).
void* FindAclnn(const OpCall& call, const std::string& name, aclError* status);
aclError RunAclnnPhase2(const OpCall& call, const std::string& api, aclnnStatus phase1, uint64_t workspace_size,
                        aclOpExecutor* executor);

// An aclnn API's phase-1 function type, by its parameters before workspaceSize and executor.
template <typename... Params>
using Phase1 = aclnnStatus (*)(Params..., uint64_t*, aclOpExecutor**);

template <typename Phase1, typename... Args>
aclError Aclnn(const OpCall& call, const std::string& api, Args... args) {
  aclError status = ACL_SUCCESS;
  auto phase1 = reinterpret_cast<Phase1>(FindAclnn(call, api + "GetWorkspaceSize", &status));
  if (!phase1) return status;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus checked = phase1(args..., &workspace_size, &executor);
  return RunAclnnPhase2(call, api, checked, workspace_size, executor);
}

// A normalisation aclop operator (GroupNorm, LayerNorm: x, gamma, beta to y, mean, variance) run as
// the aclnn API `norm` that writes rstd where the operator writes the variance. A device's kernel
// computes float16 and bfloat16 in float32 and rounds each output once; so do these: 16-bit
// operands go through float32 copies, and the variance, rstd^-2 - eps, is computed in float32 and
// cast once (in the 16-bit dtype, rstd rounded, its power and the sum rounded again, it was three
// roundings, an ulp off in about half the groups, which torch_npu's rstd and the backward read).
using NormKernel = std::function<aclError(AclnnObjects& o, aclTensor* x, aclTensor* gamma, aclTensor* beta, aclTensor* y,
                                          aclTensor* mean, aclTensor* rstd)>;
aclError NormWithVariance(const OpCall& call, double eps, const NormKernel& norm);

// An operator type the bridge models: its attributes (any other attribute, or one of another
// kind, is refused before Run) and what runs it.
struct OpEntry {
  const char* type;
  std::vector<AttrSpec> attrs;
  aclError (*run)(const OpCall& call);
  // The operator's aclop kernel exists on every chip (the common math operators): the aclnn API
  // that computes it is called whatever chips its page lists (AclopKernelOnEveryChip).
  bool every_chip = false;
  // The extent of its outputs depends on the data (NonZero, MaskedSelect, the unique operators):
  // the call writes it into the outputs' descriptions, which a plain copy of a private output
  // would not carry back, so a private output is refused (a private input is read as any other).
  bool data_shaped = false;
  // Its aclnn API reads operands in private layouts itself (MlaProlog's FRACTAL_NZ weights, which
  // aclnnMlaProlog's page requires): the run sees every operand in the layout the caller gave
  // (AclnnObjects::InLayout), none through a plain copy.
  bool own_layouts = false;
};

// The bridge's table (ops.cpp), by operator type.
const std::vector<OpEntry>& Entries();
// The vision operators' (vision.cpp): Iou, GIoU, DIoU, CIoU, GIoUGrad, DIoUGrad, NonMaxSuppressionV4,
// BatchMultiClassNonMaxSuppression, PSROIPoolingV2, PSROIPoolingGradV2D, ROIAlign, ROIAlignGrad, DeformableOffsets,
// BoundingBoxEncode, BoundingBoxDecode, AnchorResponseFlags, YoloBoxesEncode, SubSample.
const std::vector<OpEntry>& VisionEntries();
// The rotated-box operators' (rotated.cpp): RotatedBoxEncode, RotatedBoxDecode, RotatedIou,
// RotatedOverlaps, RotatedNMS; and NMSWithMask.
const std::vector<OpEntry>& RotatedEntries();
// Those behind torch_npu's own operators that run as an aclnn API of the same operation, or as its
// formula where the API refuses the chip (custom_ops.cpp): SignBitsPack, SignBitsUnpack,
// SoftmaxCrossEntropyWithLogits, ApplyAdamD, NPUAllocFloatStatus, AttentionQKVGradX, AttentionQKVGradW.
const std::vector<OpEntry>& CustomEntries();

// The common math operators' (math.cpp, with norms.cpp, indexing.cpp, linalg.cpp and creation.cpp):
// elementwise, comparisons, Cast, reductions, softmax, Cumsum, ConcatD, ArgMaxV2, ScatterElements,
// MatrixInverse, MatrixTriangularSolve, Histogram.
const std::vector<OpEntry>& MathEntries();

// The neural-network operators' (nn.cpp, with indexing.cpp, sampling.cpp and pooling.cpp): losses,
// reflection and replication padding, adaptive average pooling, group norm, Cummax, Cummin, Cross,
// CeluV2, Xlogy, Erfinv, NonZero, MaskedSelect, Index, IndexPutV2, ScatterNdAdd, ScatterNdUpdate,
// Pdist, Cdist, MultilabelMarginLoss, CTCLossV2, EmbeddingBag, the resize operators, GridSampler2D
// and GridSampler3D.
const std::vector<OpEntry>& NnEntries();
// The gradient operators' (grad.cpp): NLLLossGrad, AdaptiveAvgPool2dGrad, AvgPoolV2Grad, the batch
// norm's BNTrainingUpdateGrad, BNTrainingReduceGrad and BNInferGrad, PadV3Grad, EluGradV2,
// Conv2DBackpropInput and Conv2DBackpropFilter, the resize gradients, GridSampler2DGrad,
// GridSampler3DGrad, CTCLossV2Grad, EmbeddingDenseGrad, the activations' and losses' gradients.
const std::vector<OpEntry>& GradEntries();
// The recurrent operators' (rnn.cpp): DynamicRNN, DynamicRNNGrad, DynamicGRUV2, DynamicGRUV2Grad.
const std::vector<OpEntry>& RnnEntries();

// The reductions of CANN's loss prototypes and their gradients' (attribute "reduction"), in the order
// of the aclnn APIs' reduction numbers (bridge.cpp).
extern const std::initializer_list<const char*> kReductions;

// HardSigmoid's and HardSigmoidGrad's attributes alpha and beta: aclnnHardsigmoid and its backward
// compute 1/6 and 1/2 only; others are refused naming them (math.cpp).
aclError CheckHardSigmoidAttributes(const OpCall& call);

// MirrorPad, and PadV3 in modes "reflect" and "edge" (nn.cpp).
aclError RunMirrorOrEdgePad(const OpCall& call);
// The reflection or replication padding of MirrorPad, PadV3 and PadV3Grad: the paddings are [begin,
// end] per dimension from the first (paddings_contiguous false: every begin, then every end) of an
// unpadded x of shape `dims`; aclnnReflectionPad1d/2d/3d and aclnnReplicationPad1d/2d/3d (and their
// backwards) pad the last 1, 2 or 3 dimensions of an input of one or two more, taking the last
// dimension's pair first.
struct MirrorPadPlan {
  std::string api;           // aclnnReflectionPad2d, ...
  std::vector<int64_t> pad;  // in the API's order
};
aclError PlanMirrorPad(const OpCall& call, const std::vector<int64_t>& dims, const std::vector<int64_t>& paddings,
                       bool reflect, MirrorPadPlan* plan);
// The mode attribute: MirrorPad's "REFLECT", PadV3's and PadV3Grad's "reflect" or "edge" (reflect
// true for reflection); any other refused naming it.
aclError ReadMirrorPadMode(const OpCall& call, bool* reflect);

// CTCLossV2's and CTCLossV2Grad's host-held lengths and blank (nn.cpp), as aclnnCtcLoss and its
// backward take them. `lengths` is the index of input input_lengths (target_lengths follows it).
struct CtcArguments {
  std::vector<int64_t> input_lengths, target_lengths;
  int64_t blank = 0;
};
aclError ReadCtcArguments(const OpCall& call, size_t log_probs, size_t lengths, CtcArguments* ctc);

// The attributes ResizeD and ResizeGradD share (sampling.cpp), as torch_npu sends PyTorch's "linear"
// (mode "linear", one spatial dimension) and "bicubic" (mode "cubic", two): "align_corners" is
// align_corners=True, "half_pixel" and "pytorch_half_pixel" False; scales are PyTorch's scale factors
// (0: from the sizes). `modelled` is false for another mode or transformation, a region of
// interest, exclude_outside, a cubic coefficient other than -0.75, or scales not one per dimension.
struct ResizeDAttributes {
  std::string mode, transform;
  std::vector<float> scales;
  bool align = false, linear = false, cubic = false, modelled = false;
  size_t spatial = 0;
  // Scale factor i, 0 where none was sent.
  double Scale(size_t i) const { return scales.empty() ? 0.0 : static_cast<double>(scales[i]); }
};
ResizeDAttributes ReadResizeDAttributes(const OpCall& call);

// The window of AvgPoolV2 and AvgPoolV2Grad (math.cpp), as aclnnAvgPool2d and its backward take it;
// what they do not express is refused naming it.
struct AvgPoolWindow {
  std::vector<int64_t> kernel, stride, padding;  // over H and W
  bool ceil_mode = false;
  bool count_include_pad = false;
  int64_t divisor_override = 0;
};
aclError ReadAvgPoolWindow(const OpCall& call, aclDataType dtype, AvgPoolWindow* window);

// The window of Conv2D, Conv2DTranspose, Conv2DBackpropInput and Conv2DBackpropFilter (ops.cpp), as
// aclnnConvolution and its backward take it (over H and W); what they do not express is refused.
struct ConvWindow {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
};
aclError ReadConvWindow(const OpCall& call, ConvWindow* window);

// Identity (op_compiler.cpp): a copy, or a transform between a plain and a private layout.
aclError RunIdentity(const OpCall& call);

// Queues on `stream` the move of every element of a tensor between its plain layout (shape
// `plain`) and a private one (storage shape `storage`, NC1HWC0 or FRACTAL_NZ): into the private
// storage (its padding zeroed) when into_private, else out of it. A refusal's status (`api`'s
// NotModelledStatus; *why says how, the caller says it) when the shapes are not such a pair.
aclError LaunchLayoutTransform(const char* api, aclrtStream stream, aclFormat plain_format, const std::vector<int64_t>& plain,
                               aclFormat private_format, const std::vector<int64_t>& storage, size_t item,
                               const void* from, void* to, size_t to_bytes, bool into_private, std::string* why);

// Runs `call` by its entry, or refuses it (ACL_ERROR_OP_NOT_FOUND) naming the type.
aclError Run(const OpCall& call);

}  // namespace aclsim::aclop

#endif  // ACLNN_SIM_OP_COMPILER_BRIDGE_H_
