//===- RematEnums.td - roles, phases and policies ------------*- tablegen -*-===//
//
// The values of `remat.role`, `remat.phase` and `remat.policy`, defined
// once: the dialect's verifier, its typed accessors (RematDialect.h) and
// every pass read them from here. The IR spells a value as an attribute of
// the dialect (RematAttrs.td): `remat.phase = #remat.phase<forward>`.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATENUMS
#define REMAT_DIALECT_REMAT_IR_REMATENUMS

include "mlir/IR/EnumAttr.td"

def Remat_ArgumentRole : I32EnumAttr<"ArgumentRole",
    "the role of a training step's argument (`remat.role`)", [
      I32EnumAttrCase<"Input", 0, "input">,
      I32EnumAttrCase<"Label", 1, "label">,
      I32EnumAttrCase<"Weight", 2, "weight">,
      I32EnumAttrCase<"Buffer", 3, "buffer">,
      I32EnumAttrCase<"OptState", 4, "opt_state">,
      I32EnumAttrCase<"Step", 5, "step">,
      I32EnumAttrCase<"Seed", 6, "seed">
    ]> {
  let cppNamespace = "::mlir::remat";
  let genSpecializedAttr = 0;
}

def Remat_Phase : I32EnumAttr<"Phase",
    "the part of the training step an op belongs to (`remat.phase`)", [
      I32EnumAttrCase<"Forward", 0, "forward">,
      I32EnumAttrCase<"Backward", 1, "backward">,
      I32EnumAttrCase<"Update", 2, "update">
    ]> {
  let cppNamespace = "::mlir::remat";
  let genSpecializedAttr = 0;
}

def Remat_OpPolicy : I32EnumAttr<"OpPolicy",
    "the user's mark on an op (`remat.policy`)", [
      I32EnumAttrCase<"Keep", 0, "keep">,
      I32EnumAttrCase<"Recompute", 1, "recompute">
    ]> {
  let cppNamespace = "::mlir::remat";
  let genSpecializedAttr = 0;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATENUMS
