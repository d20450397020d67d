// The recurrent aclop operators: DynamicRNN, DynamicRNNV2, DynamicRNNGrad, DynamicGRUV2 and DynamicGRUV2Grad, what
// op-plugin's acl_op::lstm and acl_op::gru send where its aclnnLSTM and aclnnGRU path does not take the
// module (an LSTM of several layers, both directions or no biases; a bfloat16 or mixed-dtype LSTM or
// GRU). Each call is one layer in one direction, its weights laid out as the prototypes give them
// (torchair's auto_generated_ge_raw_ops.py):
//   DynamicRNN     x [T, B, in], w [in + H, 4H] (W_ih^T over W_hh^T), b [4H] (b_ih + b_hh), init_h and
//                  init_c [1, B, H] -> y, output_h, output_c, i, j, f, o, tanhc, every one [T, B, H]
//                  (output_h and output_c each step's state), gate order "ifjo" (aten's i, f, g, o).
//   DynamicRNNV2   (torch.lstm_cell's route, one step) x, weight_input [in, 4H], weight_hidden [H, 4H], an
//                  optional b [4H], init_h and init_c -> the same eight outputs; gate order "ifco".
//   DynamicRNNGrad the same operands with the forward's outputs and dy [T, B, H], dh and dc (the last
//                  state's gradients) -> dw, db, dx, dh_prev, dc_prev.
//   DynamicGRUV2   x, weight_input [in, 3H], weight_hidden [H, 3H], bias_input and bias_hidden [3H],
//                  init_h [B, H] -> y, output_h, update (z), reset (r), new (n), hidden_new (W_hn h + b_hn),
//                  gate order "rzh" (aten's r, z, n), reset_after.
//   DynamicGRUV2Grad  the forward's operands and outputs with dy, dh -> dw_input, dw_hidden, db_input,
//                  db_hidden, dx, dh_prev.
// Each runs as the rnn family's aclnnLSTM / aclnnGRU and their backwards (one layer, one direction), the
// weights seen through transposed views; the "REDIRECTIONAL" direction (the sequence walked from its
// last step) runs on copies flipped along time, its sequences flipped back. A device's kernel computes
// in float32 and rounds each output once: float16 and bfloat16 operands go through float32 copies.
// What the family does not compute is refused naming it: variable-length sequences (seq_length), a
// mask, peepholes, projections (num_proj), cell clipping, dropout (keep_prob), a forget bias, another
// gate order, activation or cell type, batch-major sequences (time_major false).
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"

namespace aclsim::aclop {

namespace {

using CopyApi = Phase1<aclTensor*, const aclTensor*>;  // aclnnInplaceCopy: casts and strides
using FlipApi = Phase1<const aclTensor*, const aclIntArray*, aclTensor*>;
using ZeroApi = Phase1<aclTensor*>;
using LstmApi = Phase1<const aclTensor*, const aclTensorList*, const aclTensorList*, const aclTensor*, bool, int64_t,
                       double, bool, bool, bool, aclTensor*, aclTensor*, aclTensor*, aclTensorList*, aclTensorList*,
                       aclTensorList*, aclTensorList*, aclTensorList*, aclTensorList*, aclTensorList*>;
using LstmBackwardApi =
    Phase1<const aclTensor*, const aclTensorList*, const aclTensorList*, const aclTensor*, const aclTensor*,
           const aclTensor*, const aclTensorList*, const aclTensorList*, const aclTensorList*, const aclTensorList*,
           const aclTensorList*, const aclTensorList*, const aclTensorList*, const aclTensor*, bool, int64_t, double,
           bool, bool, bool, const aclBoolArray*, aclTensor*, aclTensor*, aclTensor*, aclTensorList*>;
using GruApi = Phase1<const aclTensor*, const aclTensorList*, const aclTensor*, const aclTensor*, bool, int64_t, double,
                      bool, bool, bool, aclTensor*, aclTensor*, aclTensorList*, aclTensorList*, aclTensorList*,
                      aclTensorList*, aclTensorList*>;
using GruBackwardApi =
    Phase1<const aclTensor*, const aclTensorList*, const aclTensorList*, const aclTensor*, const aclTensor*,
           const aclTensorList*, const aclTensorList*, const aclTensorList*, const aclTensorList*, const aclTensorList*,
           const aclTensor*, bool, int64_t, bool, bool, aclTensor*, aclTensor*, aclTensorList*>;

// An optional input left out: torch_npu's placeholder, or (DynamicRNNGrad's seq_length, mask and
// peephole weights) a 0-d tensor it passes in their place; none of them is 0-d when given.
bool Absent(const OpCall& call, size_t input) {
  return input >= call.inputs.size() || Absent(call.inputs[input]) || call.inputs[input].desc->dims.empty();
}

// One layer in one direction: its operands in float32, in the family's time order (flipped for the
// reverse direction), and its results written back into the call's outputs once the kernel ran.
class Cell {
 public:
  Cell(const OpCall& call, bool reverse) : call_(call), o_(call), reverse_(reverse) {}

  AclnnObjects& objects() { return o_; }

  // Input `input` seen as `view` through `strides` from `offset` (a weight's transposed block), in
  // float32; `sequence`: a [T, ...] operand, flipped along time for the reverse direction.
  aclTensor* In(size_t input, const char* what, const std::vector<int64_t>& view, const std::vector<int64_t>& strides,
                int64_t offset, bool sequence = false) {
    const Operand& operand = call_.inputs[input];
    aclTensor* given = o_.View(operand, what, view, strides, offset, operand.desc->dims);
    return Float32(given, operand.desc->dtype, view, sequence);
  }
  // Input `input`, contiguous, seen in `view` (its own shape when empty).
  aclTensor* In(size_t input, const char* what, bool sequence = false, std::vector<int64_t> view = {}) {
    if (view.empty()) view = call_.inputs[input].desc->dims;
    return In(input, what, view, ContiguousStrides(view), 0, sequence);
  }
  // A float32 tensor the kernel writes, copied into output `output` (seen as the view) by Finish.
  aclTensor* Out(size_t output, const char* what, const std::vector<int64_t>& view, const std::vector<int64_t>& strides,
                 int64_t offset, bool sequence = false) {
    const Operand& operand = call_.outputs[output];
    aclTensor* target = o_.View(operand, what, view, strides, offset, operand.desc->dims);
    if (operand.desc->dtype == ACL_FLOAT && !(sequence && reverse_) && ContiguousStrides(view) == strides) return target;
    aclTensor* computed = o_.Scratch(ACL_FLOAT, view);
    pending_.push_back({computed, target, view, sequence && reverse_});
    return computed;
  }
  aclTensor* Out(size_t output, const char* what, bool sequence = false, std::vector<int64_t> view = {}) {
    if (view.empty()) view = call_.outputs[output].desc->dims;
    return Out(output, what, view, ContiguousStrides(view), 0, sequence);
  }
  aclTensor* Zeros(const std::vector<int64_t>& dims) {
    aclTensor* zeros = o_.Scratch(ACL_FLOAT, dims);
    if (o_.status()) return nullptr;
    status_ = Aclnn<ZeroApi>(call_, "aclnnInplaceZero", zeros);
    return status_ ? nullptr : zeros;
  }
  aclTensorList* List(std::vector<aclTensor*> tensors) { return o_.List(tensors); }

  // The error a preparation met (the objects' or a kernel's), else success.
  aclError status() const { return o_.status() ? o_.status() : status_; }

  // The outputs the kernel wrote into float32 copies, flipped back and cast into place.
  aclError Finish() {
    for (const Pending& p : pending_) {
      aclTensor* result = p.computed;
      if (p.flip) {
        aclTensor* flipped = o_.Scratch(ACL_FLOAT, p.view);
        if (o_.status()) return o_.status();
        if (aclError s = Aclnn<FlipApi>(call_, "aclnnFlip", result, o_.Ints({0}), flipped)) return s;
        result = flipped;
      }
      if (aclError s = Aclnn<CopyApi>(call_, "aclnnInplaceCopy", p.target, result)) return s;
    }
    return ACL_SUCCESS;
  }

 private:
  aclTensor* Float32(aclTensor* given, aclDataType dtype, const std::vector<int64_t>& view, bool sequence) {
    if (!given || status()) return nullptr;
    aclTensor* result = given;
    if (dtype != ACL_FLOAT) {
      result = o_.Scratch(ACL_FLOAT, view);
      if (o_.status()) return nullptr;
      if ((status_ = Aclnn<CopyApi>(call_, "aclnnInplaceCopy", result, given))) return nullptr;
    }
    if (sequence && reverse_) {
      aclTensor* flipped = o_.Scratch(ACL_FLOAT, view);
      if (o_.status()) return nullptr;
      if ((status_ = Aclnn<FlipApi>(call_, "aclnnFlip", result, o_.Ints({0}), flipped))) return nullptr;
      result = flipped;
    }
    return result;
  }

  struct Pending {
    aclTensor* computed;
    aclTensor* target;
    std::vector<int64_t> view;
    bool flip;
  };
  const OpCall& call_;
  AclnnObjects o_;
  bool reverse_;
  aclError status_ = ACL_SUCCESS;
  std::vector<Pending> pending_;
};

// The attributes every one of them reads: what is refused, and the direction (true: reverse).
// `aten_order`: how the operator's gate_order names aten's gate layout (an LSTM's i, f, g, o:
// DynamicRNN's "ifjo", DynamicRNNV2's "ifco"; a GRU's r, z, n: "rzh").
aclError ReadAttributes(const OpCall& call, const std::string& aten_order, bool* reverse) {
  const bool lstm = aten_order.size() == 4;
  auto refuse = [&](const std::string& what) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, what + " is not modelled");
  };
  int64_t direction = 0;
  if (aclError s = call.Choice("direction", "UNIDIRECTIONAL", {"UNIDIRECTIONAL", "REDIRECTIONAL"}, &direction)) return s;
  *reverse = direction == 1;
  const std::string order = call.String("gate_order", lstm ? "ijfo" : "zrh");
  if (order != aten_order) return refuse("attribute gate_order = \"" + order + "\" (aten's order, \"" + aten_order + "\", is)");
  if (call.String("cell_type", "LSTM") != "LSTM") return refuse("attribute cell_type = \"" + call.String("cell_type", "") + "\"");
  if (call.Has("activation") && call.String("activation", "") != "tanh") {
    return refuse("attribute activation = \"" + call.String("activation", "") + "\"");
  }
  if (call.Bool("use_peephole", false)) return refuse("attribute use_peephole = true (peephole weights)");
  if (call.Int("num_proj", 0) != 0) return refuse("attribute num_proj = " + std::to_string(call.Int("num_proj", 0)) + " (a projection)");
  if (call.Float("cell_clip", -1.0f) != -1.0f) return refuse("attribute cell_clip = " + std::to_string(call.Float("cell_clip", -1.0f)));
  // keep_prob: 1 in the forward's prototype, -1 (unset) in the gradients'; anything else drops out.
  const float keep = call.Float("keep_prob", 1.0f);
  if (keep != 1.0f && keep != -1.0f) return refuse("attribute keep_prob = " + std::to_string(keep) + " (dropout)");
  if (call.Float("forget_bias", 0.0f) != 0.0f) return refuse("attribute forget_bias = " + std::to_string(call.Float("forget_bias", 0.0f)));
  if (!call.Bool("time_major", true)) return refuse("attribute time_major = false (batch-major sequences)");
  if (!call.Bool("reset_after", true)) return refuse("attribute reset_after = false");
  const int64_t depth = call.Int("cell_depth", 1);
  if (depth > 1) return refuse("attribute cell_depth = " + std::to_string(depth) + " (several layers in one call)");
  return ACL_SUCCESS;
}

// Inputs the family does not model, refused when given: seq_length, mask, the peephole weights.
aclError RefuseGiven(const OpCall& call, std::initializer_list<std::pair<size_t, const char*>> inputs) {
  for (const auto& [index, name] : inputs) {
    if (!Absent(call, index)) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + name + " is not modelled");
  }
  return ACL_SUCCESS;
}

// Floating operands only (the prototypes' float16 and float32, and torch_npu's bfloat16).
aclError FloatingOperands(const OpCall& call, size_t inputs) {
  auto floating = [](aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; };
  for (size_t i = 0; i < inputs && i < call.inputs.size(); ++i) {
    if (!Absent(call, i) && !floating(call.inputs[i].desc->dtype)) {
      return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "input " + std::to_string(i) + " of dtype " +
                                                            DTypeName(call.inputs[i].desc->dtype) +
                                                            " (float32, float16 or bfloat16 modelled)");
    }
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (!floating(call.outputs[i].desc->dtype)) {
      return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "output " + std::to_string(i) + " of dtype " +
                                                            DTypeName(call.outputs[i].desc->dtype));
    }
  }
  return ACL_SUCCESS;
}

// T, B, in of x [T, B, in] and H of the output `sequence_output` [T, B, H], checked against the weights'
// shapes `weights` (each must equal its expected shape, by input index).
struct Sizes {
  int64_t steps = 0, batch = 0, input = 0, hidden = 0;
};
aclError ReadSizes(const OpCall& call, int64_t hidden, Sizes* sizes) {
  const std::vector<int64_t>& x = call.inputs[0].desc->dims;
  if (x.size() != 3) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x) + " is not [T, B, input_size]");
  *sizes = {x[0], x[1], x[2], hidden};
  return ACL_SUCCESS;
}
aclError ExpectShape(const OpCall& call, size_t input, const char* what, const std::vector<int64_t>& shape) {
  if (call.inputs[input].desc->dims == shape) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " " + ListText(call.inputs[input].desc->dims) +
                                                     " is not " + ListText(shape));
}

// The hidden size of an operator whose output `output` is [T, B, H] (DynamicRNN's and DynamicGRUV2's y),
// or of an input `input` [T, B, H] (the gradients' y).
int64_t HiddenOf(const std::vector<int64_t>& dims) { return dims.size() == 3 ? dims[2] : -1; }

// --- LSTM -------------------------------------------------------------------------------------------
// DynamicRNN's and DynamicRNNGrad's inputs, by index.
enum RnnInput { kX, kW, kB };

// The family's params [W_ih, W_hh, b_ih, b_hh] from the weights' views and the operator's one bias
// `b` (the sum of aten's two; null: none, zeros), b_hh zeros (its own tensor: a list holds one once).
aclTensorList* LstmParamList(Cell& cell, const Sizes& s, aclTensor* w_ih, aclTensor* w_hh, aclTensor* b) {
  if (!b) b = cell.Zeros({4 * s.hidden});
  aclTensor* b_hh = cell.Zeros({4 * s.hidden});
  if (cell.status()) return nullptr;
  return cell.List({w_ih, w_hh, b, b_hh});
}

// DynamicRNN's params from w [in + H, 4H] and b: W_ih^T its first `in` rows, W_hh^T the rest.
aclTensorList* LstmParams(Cell& cell, const Sizes& s) {
  const int64_t width = 4 * s.hidden;
  aclTensor* w_ih = cell.In(kW, "w", {width, s.input}, {1, width}, 0);
  aclTensor* w_hh = cell.In(kW, "w", {width, s.hidden}, {1, width}, s.input * width);
  return LstmParamList(cell, s, w_ih, w_hh, cell.In(kB, "b"));
}

aclError LstmWeightsShapes(const OpCall& call, const Sizes& s) {
  if (aclError e = ExpectShape(call, kW, "w", {s.input + s.hidden, 4 * s.hidden})) return e;
  return ExpectShape(call, kB, "b", {4 * s.hidden});
}

// The initial state `input` ([1, B, H] or [B, H]) as the family's [1, B, H], or zeros when absent.
aclTensor* InitialState(Cell& cell, const OpCall& call, size_t input, const char* what, const Sizes& s) {
  const std::vector<int64_t> state = {1, s.batch, s.hidden};
  if (Absent(call, input)) return cell.Zeros(state);
  if (Elements(call.inputs[input].desc->dims) != s.batch * s.hidden) {
    call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " " + ListText(call.inputs[input].desc->dims) +
                                                " is not [1, B, H] = " + ListText(state));
    return nullptr;
  }
  return cell.In(input, what, false, state);
}

// One LSTM layer in one direction through aclnnLSTM, its params [W_ih, W_hh, b_ih, b_hh] made; the
// initial state at inputs `init_h` and `init_c`; outputs y, output_h, output_c, i, j, f, o, tanhc.
aclError RunLstm(const OpCall& call, Cell& cell, const Sizes& sz, aclTensorList* params, size_t init_h, size_t init_c) {
  aclTensor* x = cell.In(kX, "x", true);
  aclTensor* h0 = InitialState(cell, call, init_h, "init_h", sz);
  aclTensor* c0 = InitialState(cell, call, init_c, "init_c", sz);
  if (!h0 || !c0) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  aclTensorList* hx = cell.List({h0, c0});
  const char* names[] = {"y", "output_h", "output_c", "i", "j", "f", "o", "tanhc"};
  aclTensor* outs[8] = {};
  for (size_t k = 0; k < 8; ++k) outs[k] = cell.Out(k, names[k], true);
  const std::vector<int64_t> last = {1, sz.batch, sz.hidden};
  aclTensor* hy = cell.objects().Scratch(ACL_FLOAT, last);  // output_h's and output_c's last step
  aclTensor* cy = cell.objects().Scratch(ACL_FLOAT, last);
  auto one = [&](aclTensor* t) { return cell.List({t}); };
  aclTensorList* i = one(outs[3]);
  aclTensorList* j = one(outs[4]);
  aclTensorList* f = one(outs[5]);
  aclTensorList* o = one(outs[6]);
  aclTensorList* h = one(outs[1]);
  aclTensorList* c = one(outs[2]);
  aclTensorList* tanhc = one(outs[7]);
  if (!params || cell.status()) return cell.status();
  if (aclError s = Aclnn<LstmApi>(call, "aclnnLSTM", x, params, hx, nullptr, true, int64_t{1}, 0.0,
                                  call.Bool("is_training", true), false, false, outs[0], hy, cy, i, j, f, o, h, c,
                                  tanhc)) {
    return s;
  }
  return cell.Finish();
}

// Where DynamicRNN's and DynamicRNNV2's inputs are: how many at most, the ones the family does not
// model (refused when given), and how many from the first are operands of a floating dtype.
struct LstmForwardInputs {
  size_t count, seq_length, wci, wcf, wco, mask, floating;
  const char* aten_order;  // how gate_order names aten's i, f, g, o
};

// What an LSTM forward checks before it runs: its operands, attributes and inputs; its sizes and
// direction (true: reverse).
aclError PrepareLstmForward(const OpCall& call, const LstmForwardInputs& at, Sizes* sz, bool* reverse) {
  if (aclError s = call.Arity(3, at.count, 8)) return s;
  if (aclError s = ReadAttributes(call, at.aten_order, reverse)) return s;
  if (aclError s = RefuseGiven(call, {{at.seq_length, "seq_length (variable-length sequences)"}, {at.wci, "wci (peephole)"},
                                      {at.wcf, "wcf (peephole)"}, {at.wco, "wco (peephole)"}, {at.mask, "mask"}})) {
    return s;
  }
  if (aclError s = FloatingOperands(call, at.floating)) return s;
  return ReadSizes(call, HiddenOf(call.outputs[0].desc->dims), sz);
}

aclError DynamicRnn(const OpCall& call) {
  // x 0, w 1, b 2, seq_length 3, init_h 4, init_c 5, wci 6, wcf 7, wco 8, mask 9.
  Sizes sz;
  bool reverse = false;
  if (aclError s = PrepareLstmForward(call, {10, 3, 6, 7, 8, 9, 6, "ifjo"}, &sz, &reverse)) return s;
  if (aclError s = LstmWeightsShapes(call, sz)) return s;
  Cell cell(call, reverse);
  return RunLstm(call, cell, sz, LstmParams(cell, sz), 4, 5);
}

// DynamicRNNV2 (torch.lstm_cell's route): DynamicRNN with the weights apart, weight_input [in, 4H]
// and weight_hidden [H, 4H], and an optional b [4H]; inputs x 0, weight_input 1, weight_hidden 2, b 3,
// seq_length 4, init_h 5, init_c 6, wci 7, wcf 8, wco 9, mask 10.
aclError DynamicRnnV2(const OpCall& call) {
  Sizes sz;
  bool reverse = false;
  if (aclError s = PrepareLstmForward(call, {11, 4, 7, 8, 9, 10, 7, "ifco"}, &sz, &reverse)) return s;
  const int64_t width = 4 * sz.hidden;
  if (aclError e = ExpectShape(call, 1, "weight_input", {sz.input, width})) return e;
  if (aclError e = ExpectShape(call, 2, "weight_hidden", {sz.hidden, width})) return e;
  if (!Absent(call, 3)) {
    if (aclError e = ExpectShape(call, 3, "b", {width})) return e;
  }
  Cell cell(call, reverse);
  aclTensor* w_ih = cell.In(1, "weight_input", {width, sz.input}, {1, width}, 0);
  aclTensor* w_hh = cell.In(2, "weight_hidden", {width, sz.hidden}, {1, width}, 0);
  aclTensorList* params = LstmParamList(cell, sz, w_ih, w_hh, Absent(call, 3) ? nullptr : cell.In(3, "b"));
  return RunLstm(call, cell, sz, params, 5, 6);
}

// The inputs of an LSTM gradient the kernel reads, by index (DynamicRNNGrad's and DynamicRNNV2Grad's
// differ), and its outputs after the weights' gradients: db, dx, dh_prev, dc_prev.
struct LstmGradOperands {
  size_t init_h, init_c, h, c, dy, dh, dc, i, j, f, o, tanhct;
  size_t db, dx, dh_prev, dc_prev;
};

// One LSTM layer's gradient in one direction through aclnnLstmBackward: `params` the forward's
// [W_ih, W_hh, b_ih, b_hh], `dw_ih` and `dw_hh` where the weights' gradients go (views of outputs).
aclError RunLstmGrad(const OpCall& call, Cell& cell, const Sizes& sz, aclTensorList* params, aclTensor* dw_ih,
                     aclTensor* dw_hh, const LstmGradOperands& at) {
  const std::vector<int64_t> state = {1, sz.batch, sz.hidden};
  const std::vector<int64_t> sequence = {sz.steps, sz.batch, sz.hidden};
  aclTensor* x = cell.In(kX, "x", true, {sz.steps, sz.batch, sz.input});
  aclTensor* h0 = InitialState(cell, call, at.init_h, "init_h", sz);
  aclTensor* c0 = InitialState(cell, call, at.init_c, "init_c", sz);
  aclTensor* dh = InitialState(cell, call, at.dh, "dh", sz);
  aclTensor* dc = InitialState(cell, call, at.dc, "dc", sz);
  if (!h0 || !c0 || !dh || !dc) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  aclTensorList* hx = cell.List({h0, c0});
  // The forward's saved per-step tensors, [T, B, H] (DynamicRNNV2Grad's h and c come as [B, H]).
  for (size_t input : {at.h, at.c, at.dy, at.i, at.j, at.f, at.o, at.tanhct}) {
    if (Elements(call.inputs[input].desc->dims) != Elements(sequence)) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input " + std::to_string(input) + " " +
                                                         ListText(call.inputs[input].desc->dims) + " is not [T, B, H] = " +
                                                         ListText(sequence));
    }
  }
  auto saved = [&](size_t input, const char* what) { return cell.List({cell.In(input, what, true, sequence)}); };
  aclTensorList* h = saved(at.h, "h");
  aclTensorList* c = saved(at.c, "c");
  aclTensor* dy = cell.In(at.dy, "dy", true, sequence);
  aclTensorList* i = saved(at.i, "i");
  aclTensorList* j = saved(at.j, "j");
  aclTensorList* f = saved(at.f, "f");
  aclTensorList* o = saved(at.o, "o");
  aclTensorList* tanhc = saved(at.tanhct, "tanhct");
  // db the gates' sum (aten's two biases' gradient); dx, dh_prev and dc_prev as the outputs' shapes give them.
  aclTensor* db = cell.Out(at.db, "db");
  aclTensor* db_hh = cell.objects().Scratch(ACL_FLOAT, {4 * sz.hidden});
  const std::vector<int64_t> x_shape = {sz.steps, sz.batch, sz.input};
  if (Elements(call.outputs[at.dx].desc->dims) != Elements(x_shape)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "output dx " + ListText(call.outputs[at.dx].desc->dims) + " is not x's");
  }
  aclTensor* dx = cell.Out(at.dx, "dx", true, x_shape);
  for (size_t k : {at.dh_prev, at.dc_prev}) {
    if (Elements(call.outputs[k].desc->dims) != sz.batch * sz.hidden) {
      return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "output " + std::to_string(k) + " " +
                                                          ListText(call.outputs[k].desc->dims) + " is not [1, B, H]");
    }
  }
  aclTensor* dh_prev = cell.Out(at.dh_prev, "dh_prev", false, state);
  aclTensor* dc_prev = cell.Out(at.dc_prev, "dc_prev", false, state);
  aclTensorList* dparams = cell.List({dw_ih, dw_hh, db, db_hh});
  if (!params || cell.status()) return cell.status();
  if (aclError s = Aclnn<LstmBackwardApi>(call, "aclnnLstmBackward", x, hx, params, dy, dh, dc, i, j, f, o, h, c, tanhc,
                                          nullptr, true, int64_t{1}, 0.0, true, false, false, nullptr, dx, dh_prev,
                                          dc_prev, dparams)) {
    return s;
  }
  return cell.Finish();
}

aclError DynamicRnnGrad(const OpCall& call) {
  // x, w, b, y, init_h, init_c, h, c, dy, dh, dc, i, j, f, o, tanhct, seq_length, mask, wci, wcf, wco
  if (aclError s = call.Arity(16, 21, 5)) return s;
  bool reverse = false;
  if (aclError s = ReadAttributes(call, "ifjo", &reverse)) return s;
  if (aclError s = RefuseGiven(call, {{16, "seq_length (variable-length sequences)"}, {17, "mask"}, {18, "wci (peephole)"},
                                      {19, "wcf (peephole)"}, {20, "wco (peephole)"}})) {
    return s;
  }
  if (Absent(call, 15)) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input tanhct is absent (the backward reads it)");
  if (aclError s = FloatingOperands(call, 16)) return s;
  Sizes sz;
  if (aclError s = ReadSizes(call, HiddenOf(call.inputs[3].desc->dims), &sz)) return s;
  if (aclError s = LstmWeightsShapes(call, sz)) return s;
  Cell cell(call, reverse);
  aclTensorList* params = LstmParams(cell, sz);
  // dw [in + H, 4H] receives dW_ih^T and dW_hh^T.
  const int64_t width = 4 * sz.hidden;
  aclTensor* dw_ih = cell.Out(0, "dw", {width, sz.input}, {1, width}, 0);
  aclTensor* dw_hh = cell.Out(0, "dw", {width, sz.hidden}, {1, width}, sz.input * width);
  return RunLstmGrad(call, cell, sz, params, dw_ih, dw_hh, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1, 2, 3, 4});
}

// DynamicRNNV2Grad (torch.lstm_cell's backward, one step): x [B, in], w_x [in, 4H], w_h [H, 4H], y, init_h,
// init_c, h, c, dy, dh, dc, i, j, f, o, tanhct, seq_length 16, wci 17, wcf 18, wco 19, mask 20 ->
// dw_x, dw_h, db, dx [B, in], dh_prev, dc_prev. Its gate_order names aten's layout "ifjo", as
// DynamicRNNGrad's does (the forward's was "ifco").
aclError DynamicRnnV2Grad(const OpCall& call) {
  if (aclError s = call.Arity(16, 21, 6)) return s;
  bool reverse = false;
  if (aclError s = ReadAttributes(call, "ifjo", &reverse)) return s;
  if (call.String("recurrent_activation", "sigmoid") != "sigmoid") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute recurrent_activation = \"" +
                                                      call.String("recurrent_activation", "") + "\" is not modelled");
  }
  if (call.Bool("stateful", false)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute stateful = true is not modelled");
  if (aclError s = RefuseGiven(call, {{16, "seq_length (variable-length sequences)"}, {17, "wci (peephole)"},
                                      {18, "wcf (peephole)"}, {19, "wco (peephole)"}, {20, "mask"}})) {
    return s;
  }
  if (aclError s = FloatingOperands(call, 16)) return s;
  const std::vector<int64_t>& x = call.inputs[kX].desc->dims;
  const int64_t hidden = HiddenOf(call.inputs[3].desc->dims);
  if (x.size() != 2 || hidden < 0) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x) + " and y " + ListText(call.inputs[3].desc->dims) +
                                                       " are not [B, input_size] and [1, B, H]");
  }
  const Sizes sz = {1, x[0], x[1], hidden};
  const int64_t width = 4 * sz.hidden;
  if (aclError e = ExpectShape(call, 1, "w_x", {sz.input, width})) return e;
  if (aclError e = ExpectShape(call, 2, "w_h", {sz.hidden, width})) return e;
  Cell cell(call, reverse);
  aclTensor* w_ih = cell.In(1, "w_x", {width, sz.input}, {1, width}, 0);
  aclTensor* w_hh = cell.In(2, "w_h", {width, sz.hidden}, {1, width}, 0);
  // The biases do not enter the gradients (the backward reads the forward's saved gates).
  aclTensorList* params = LstmParamList(cell, sz, w_ih, w_hh, nullptr);
  aclTensor* dw_ih = cell.Out(0, "dw_x", {width, sz.input}, {1, width}, 0);
  aclTensor* dw_hh = cell.Out(1, "dw_h", {width, sz.hidden}, {1, width}, 0);
  return RunLstmGrad(call, cell, sz, params, dw_ih, dw_hh, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 2, 3, 4, 5});
}

// --- GRU --------------------------------------------------------------------------------------------
// DynamicGRUV2's and DynamicGRUV2Grad's weights: weight_input 1, weight_hidden 2; the forward's biases 3, 4.
aclError GruWeightsShapes(const OpCall& call, const Sizes& s) {
  if (aclError e = ExpectShape(call, 1, "weight_input", {s.input, 3 * s.hidden})) return e;
  return ExpectShape(call, 2, "weight_hidden", {s.hidden, 3 * s.hidden});
}

// [W_ih, W_hh, b_ih, b_hh]: the weights' transposed views; the biases `bias_input` and `bias_hidden`
// (zeros when absent, or for the gradient, which has none: its biases do not enter the gradients).
aclTensorList* GruParams(Cell& cell, const OpCall& call, const Sizes& s, int bias_input, int bias_hidden) {
  const int64_t width = 3 * s.hidden;
  aclTensor* w_ih = cell.In(1, "weight_input", {width, s.input}, {1, width}, 0);
  aclTensor* w_hh = cell.In(2, "weight_hidden", {width, s.hidden}, {1, width}, 0);
  auto bias = [&](int input, const char* what) {
    if (input < 0 || Absent(call, static_cast<size_t>(input))) return cell.Zeros({width});
    if (call.inputs[static_cast<size_t>(input)].desc->dims != std::vector<int64_t>{width}) {
      call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " " +
                                                  ListText(call.inputs[static_cast<size_t>(input)].desc->dims) +
                                                  " is not [3H]");
      return static_cast<aclTensor*>(nullptr);
    }
    return cell.In(static_cast<size_t>(input), what);
  };
  aclTensor* b_ih = bias(bias_input, "bias_input");
  aclTensor* b_hh = bias(bias_hidden, "bias_hidden");
  if (!b_ih || !b_hh || cell.status()) return nullptr;
  return cell.List({w_ih, w_hh, b_ih, b_hh});
}

aclError DynamicGruV2(const OpCall& call) {
  // x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h
  if (aclError s = call.Arity(3, 7, 6)) return s;
  bool reverse = false;
  if (aclError s = ReadAttributes(call, "rzh", &reverse)) return s;
  if (aclError s = RefuseGiven(call, {{5, "seq_length (variable-length sequences)"}})) return s;
  if (aclError s = FloatingOperands(call, 7)) return s;
  Sizes sz;
  if (aclError s = ReadSizes(call, HiddenOf(call.outputs[0].desc->dims), &sz)) return s;
  if (aclError s = GruWeightsShapes(call, sz)) return s;
  Cell cell(call, reverse);
  aclTensor* x = cell.In(0, "x", true);
  aclTensorList* params = GruParams(cell, call, sz, 3, 4);
  if (!params) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  aclTensor* h0 = InitialState(cell, call, 6, "init_h", sz);
  if (!h0) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  // y, output_h, update (z), reset (r), new (n), hidden_new (hn)
  const char* names[] = {"y", "output_h", "update", "reset", "new", "hidden_new"};
  aclTensor* outs[6] = {};
  for (size_t k = 0; k < 6; ++k) outs[k] = cell.Out(k, names[k], true);
  aclTensor* hy = cell.objects().Scratch(ACL_FLOAT, {1, sz.batch, sz.hidden});
  auto one = [&](aclTensor* t) { return cell.List({t}); };
  aclTensorList* r = one(outs[3]);
  aclTensorList* z = one(outs[2]);
  aclTensorList* n = one(outs[4]);
  aclTensorList* hn = one(outs[5]);
  aclTensorList* h = one(outs[1]);
  if (cell.status()) return cell.status();
  if (aclError s = Aclnn<GruApi>(call, "aclnnGRU", x, params, h0, nullptr, true, int64_t{1}, 0.0,
                                 call.Bool("is_training", true), false, false, outs[0], hy, r, z, n, hn, h)) {
    return s;
  }
  return cell.Finish();
}

aclError DynamicGruV2Grad(const OpCall& call) {
  // x, weight_input, weight_hidden, y, init_h, h, dy, dh, update, reset, new, hidden_new, seq_length, mask
  if (aclError s = call.Arity(12, 14, 6)) return s;
  bool reverse = false;
  if (aclError s = ReadAttributes(call, "rzh", &reverse)) return s;
  if (aclError s = RefuseGiven(call, {{12, "seq_length (variable-length sequences)"}, {13, "mask"}})) return s;
  if (aclError s = FloatingOperands(call, 12)) return s;
  Sizes sz;
  if (aclError s = ReadSizes(call, HiddenOf(call.inputs[3].desc->dims), &sz)) return s;
  if (aclError s = GruWeightsShapes(call, sz)) return s;
  Cell cell(call, reverse);
  aclTensor* x = cell.In(0, "x", true);
  aclTensorList* params = GruParams(cell, call, sz, -1, -1);
  if (!params) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  aclTensor* h0 = InitialState(cell, call, 4, "init_h", sz);
  aclTensor* dh = InitialState(cell, call, 7, "dh", sz);
  if (!h0 || !dh) return cell.status() ? cell.status() : ACL_ERROR_OP_INPUT_NOT_MATCH;
  aclTensorList* hx = cell.List({h0});
  auto saved = [&](size_t input, const char* what) { return cell.List({cell.In(input, what, true)}); };
  aclTensorList* h = saved(5, "h");
  aclTensor* dy = cell.In(6, "dy", true);
  aclTensorList* z = saved(8, "update");
  aclTensorList* r = saved(9, "reset");
  aclTensorList* n = saved(10, "new");
  aclTensorList* hn = saved(11, "hidden_new");
  const int64_t width = 3 * sz.hidden;
  aclTensor* dw_ih = cell.Out(0, "dw_input", {width, sz.input}, {1, width}, 0);
  aclTensor* dw_hh = cell.Out(1, "dw_hidden", {width, sz.hidden}, {1, width}, 0);
  aclTensor* db_ih = cell.Out(2, "db_input");
  aclTensor* db_hh = cell.Out(3, "db_hidden");
  aclTensor* dx = cell.Out(4, "dx", true);
  if (Elements(call.outputs[5].desc->dims) != sz.batch * sz.hidden) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "output dh_prev " + ListText(call.outputs[5].desc->dims) + " is not [B, H]");
  }
  aclTensor* dh_prev = cell.Out(5, "dh_prev", false, {1, sz.batch, sz.hidden});
  aclTensorList* dparams = cell.List({dw_ih, dw_hh, db_ih, db_hh});
  if (cell.status()) return cell.status();
  if (aclError s = Aclnn<GruBackwardApi>(call, "aclnnGRUBackward", x, params, hx, dy, dh, r, z, n, hn, h, nullptr, true,
                                         int64_t{1}, false, false, dx, dh_prev, dparams)) {
    return s;
  }
  return cell.Finish();
}

}  // namespace

const std::vector<OpEntry>& RnnEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = [] {
    std::vector<OpEntry> all = {
        {"DynamicRNN",
         {{"cell_type", K::kString}, {"direction", K::kString}, {"cell_depth", K::kInt}, {"use_peephole", K::kBool},
          {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat}, {"num_proj", K::kInt}, {"time_major", K::kBool},
          {"activation", K::kString}, {"forget_bias", K::kFloat}, {"gate_order", K::kString}, {"is_training", K::kBool}},
         DynamicRnn},
        {"DynamicRNNV2",
         {{"cell_type", K::kString}, {"direction", K::kString}, {"cell_depth", K::kInt}, {"use_peephole", K::kBool},
          {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat}, {"num_proj", K::kInt}, {"time_major", K::kBool},
          {"activation", K::kString}, {"forget_bias", K::kFloat}, {"gate_order", K::kString}, {"is_training", K::kBool}},
         DynamicRnnV2},
        {"DynamicRNNGrad",
         {{"cell_type", K::kString}, {"direction", K::kString}, {"cell_depth", K::kInt}, {"use_peephole", K::kBool},
          {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat}, {"num_proj", K::kInt}, {"time_major", K::kBool},
          {"forget_bias", K::kFloat}, {"gate_order", K::kString}},
         DynamicRnnGrad},
        {"DynamicRNNV2Grad",
         {{"cell_type", K::kString}, {"direction", K::kString}, {"cell_depth", K::kInt}, {"use_peephole", K::kBool},
          {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat}, {"num_proj", K::kInt}, {"time_major", K::kBool},
          {"activation", K::kString}, {"recurrent_activation", K::kString}, {"gate_order", K::kString},
          // merge_mode joins two directions' outputs: one direction a call (direction is read), it joins none.
          {"stateful", K::kBool}, {"merge_mode", K::kString}},
         DynamicRnnV2Grad},
        {"DynamicGRUV2",
         {{"direction", K::kString}, {"cell_depth", K::kInt}, {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat},
          {"num_proj", K::kInt}, {"time_major", K::kBool}, {"activation", K::kString}, {"gate_order", K::kString},
          {"reset_after", K::kBool}, {"is_training", K::kBool}},
         DynamicGruV2},
        {"DynamicGRUV2Grad",
         {{"direction", K::kString}, {"cell_depth", K::kInt}, {"keep_prob", K::kFloat}, {"cell_clip", K::kFloat},
          {"num_proj", K::kInt}, {"time_major", K::kBool}, {"gate_order", K::kString}, {"reset_after", K::kBool},
          // torch_npu sets it beyond the prototype: which biases the forward had, which changes no
          // gradient (the backward reads the forward's saved gates, not the biases); both are written.
          {"bias_type", K::kString}},
         DynamicGruV2Grad},
    };
    // Their aclop kernels exist on every chip that runs aclop, whatever chips the pages of the APIs
    // they run as list: op-plugin's acl_op::lstm and acl_op::gru send them on Ascend910 and Ascend310P
    // (nn.LSTM, nn.GRU, nn.LSTMCell), where aclnnLstmBackward's, aclnnGRU's and aclnnGRUBackward's pages
    // leave the chip out. ops-nn's dynamic_rnn README marks Atlas training series products (Ascend910)
    // unsupported, but aclnnLSTM's page beside it, whose API runs the same DynamicRNN kernel, marks
    // them supported: the page is followed, and no README on hand covers the other types.
    for (OpEntry& entry : all) entry.every_chip = true;
    return all;
  }();
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnLSTM, LstmApi);
ACLOP_SAME(aclnnLstmBackward, LstmBackwardApi);
ACLOP_SAME(aclnnGRU, GruApi);
ACLOP_SAME(aclnnGRUBackward, GruBackwardApi);
ACLOP_SAME(aclnnFlip, FlipApi);
ACLOP_SAME(aclnnInplaceCopy, CopyApi);
ACLOP_SAME(aclnnInplaceZero, ZeroApi);
