//! IR core tests with a throwaway dialect registered in this test binary
//! (the core itself knows no dialect): use-list invariants under random
//! rewrites (property test), builder/rewriter operations, parsing and printing.

use aot_ir::*;
use proptest::prelude::*;

fn infer_same(ic: &InferCtx<'_>) -> Result<smallvec::SmallVec<[TypeData; 1]>, String> {
    let t = ic.operand_types.first().ok_or("needs an operand")?;
    Ok(smallvec::smallvec![ic.ctx.type_data(*t).clone()])
}

inventory::submit! {
    OpDef {
        name: "test.op",
        summary: "n operands, one result of the first operand's type",
        traits: Traits::PURE,
        operands: Arity::AtLeast(1),
        results: Arity::Exact(1),
        infer: Some(infer_same),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "test.source",
        summary: "produces a value",
        results: Arity::Exact(1),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "test.region",
        summary: "an op with one region (not isolated)",
        regions: 1,
        traits: Traits::NO_TERMINATOR,
        ..OpDef::DEFAULT
    }
}

/// Checks that every operand slot is in its value's use list exactly once
/// and that every use list entry points at a slot holding that value.
fn check_use_lists(ctx: &Context, root: Op) {
    let mut slots = std::collections::HashSet::new();
    ctx.walk_pre(root, &mut |op| {
        for (i, v) in ctx.operands(op).enumerate() {
            let u = Use { op, index: i as u32 };
            assert!(ctx.uses(v).any(|x| x == u), "operand {i} of {op} missing from use list");
            slots.insert(u);
        }
    });
    ctx.walk_pre(root, &mut |op| {
        for &r in ctx.results(op) {
            for u in ctx.uses(r) {
                assert!(slots.contains(&u), "stale use {u:?}");
                assert_eq!(ctx.operand(u.op, u.index as usize), r);
            }
        }
    });
}

fn new_block_module(ctx: &mut Context) -> (Op, Block) {
    let module = parse_module(ctx, "", &ParseOptions { file: "t".into(), first_line: 1 }).unwrap();
    let b = ctx.single_block(module, 0).unwrap();
    (module, b)
}

#[test]
fn build_replace_erase_move() {
    let mut ctx = Context::new();
    let (module, b) = new_block_module(&mut ctx);
    let t = ctx.tensor_type(&[4], ElemType::F32);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point(InsertPoint::End(b));
    let s = rw.build_typed("test.source", &[], &[], &[t]);
    let sv = rw.result(s, 0);
    let a = rw.build1("test.op", &[sv, sv], &[]).unwrap();
    let c = rw.build1("test.op", &[a, sv], &[]).unwrap();
    assert_eq!(rw.num_uses(sv), 3);
    assert_eq!(rw.num_uses(a), 1);
    // replace all uses of `a` by `sv`
    rw.replace_all_uses(a, sv);
    assert_eq!(rw.num_uses(a), 0);
    assert_eq!(rw.num_uses(sv), 4);
    let a_op = rw.defining_op(a).unwrap();
    rw.erase_op(a_op);
    assert_eq!(rw.num_uses(sv), 2);
    // move `c`'s op before the source and back
    let c_op = rw.defining_op(c).unwrap();
    rw.move_before(c_op, s);
    assert_eq!(rw.block_first_op(b), Some(c_op));
    rw.move_after(c_op, s);
    assert_eq!(rw.block_last_op(b), Some(c_op));
    assert!(rw.changed());
    check_use_lists(&ctx, module);
    verify(&ctx, module).unwrap();
    let text = print_op(&ctx, module, PrintOptions::default());
    assert!(text.contains("%1 = test.op %0, %0 : tensor<4xf32>"), "{text}");
}

/// `users` lists each using op once, in use-list order, also past the
/// size where it switches to a hash set.
#[test]
fn users_are_distinct_in_use_order() {
    let mut ctx = Context::new();
    let (_, b) = new_block_module(&mut ctx);
    let t = ctx.tensor_type(&[4], ElemType::F32);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point(InsertPoint::End(b));
    let s = rw.build_typed("test.source", &[], &[], &[t]);
    let sv = rw.result(s, 0);
    for n in [3usize, 40] {
        let ops: Vec<Op> = (0..n)
            .map(|k| {
                let operands = if k % 3 == 0 { vec![sv, sv, sv] } else { vec![sv] };
                let v = rw.build1("test.op", &operands, &[]).unwrap();
                rw.defining_op(v).unwrap()
            })
            .collect();
        let users = rw.users(sv);
        let expected: Vec<Op> = {
            let mut seen = std::collections::HashSet::new();
            rw.uses(sv).map(|u| u.op).filter(|o| seen.insert(*o)).collect()
        };
        assert_eq!(users.to_vec(), expected);
        assert_eq!(users.len(), n);
        assert!(ops.iter().all(|o| users.contains(o)));
        for op in ops {
            rw.erase_op(op);
        }
    }
}

#[test]
fn insertion_points_keep_program_order() {
    let mut ctx = Context::new();
    let (module, b) = new_block_module(&mut ctx);
    let t = ctx.tensor_type(&[2], ElemType::F32);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point(InsertPoint::End(b));
    let s = rw.build_typed("test.source", &[], &[], &[t]);
    let v = rw.result(s, 0);
    let last = rw.build1("test.op", &[v], &[]).unwrap();
    let last_op = rw.defining_op(last).unwrap();
    // Inserting before `last` twice keeps the two new ops in creation order.
    rw.set_insertion_point(InsertPoint::Before(last_op));
    let x = rw.build1("test.op", &[v], &[]).unwrap();
    let y = rw.build1("test.op", &[x], &[]).unwrap();
    // Inserting at the start goes before everything, in order.
    rw.set_insertion_point(InsertPoint::Start(b));
    let p = rw.build_typed("test.source", &[], &[], &[t]);
    let q = rw.build_typed("test.source", &[], &[], &[t]);
    let order: Vec<Op> = rw.block_ops(b).collect();
    let xo = rw.defining_op(x).unwrap();
    let yo = rw.defining_op(y).unwrap();
    assert_eq!(order, vec![p, q, s, xo, yo, last_op]);
    verify(&ctx, module).unwrap();
}

/// A module whose value is used inside a (non-isolated) region.
fn value_used_in_a_region() -> (Context, Op) {
    let src = r#"
      %0 = test.source : tensor<2xf32>
      "test.region"() ({
        %1 = test.op %0 : tensor<2xf32>
      }) : () -> ()
    "#;
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, src, &ParseOptions { file: "t".into(), first_line: 1 }).unwrap();
    (ctx, m)
}

#[test]
fn erase_block_argument_and_dominance_across_regions() {
    let (ctx, m) = value_used_in_a_region();
    // Values of an enclosing block are visible in nested non-isolated regions.
    verify(&ctx, m).unwrap();
    // But not in an isolated op (the module): parse a use across modules.
    let src2 = r#"
      %0 = test.source : tensor<2xf32>
      module {
        %1 = test.op %0 : tensor<2xf32>
      }
    "#;
    let mut ctx2 = Context::new();
    let err = parse_module(&mut ctx2, src2, &ParseOptions { file: "t".into(), first_line: 1 }).unwrap_err();
    assert!(err.message.contains("use of undeclared SSA value name '%0'"), "{}", err.message);
}

#[test]
fn printed_names_follow_mlir_numbering() {
    let src = "%a = test.source : tensor<2xf32>\n%b = test.op %a, %a : tensor<2xf32>\n";
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, src, &ParseOptions { file: "t".into(), first_line: 1 }).unwrap();
    let text = print_op(&ctx, m, PrintOptions::default());
    assert_eq!(text, "module {\n  %0 = test.source : tensor<2xf32>\n  %1 = test.op %0, %0 : tensor<2xf32>\n}");
}

#[test]
fn types_and_attributes_parse_and_print() {
    let mut ctx = Context::new();
    for (src, printed) in [
        ("tensor<2x?x3xf32>", "tensor<2x?x3xf32>"),
        ("tensor<bf16>", "tensor<bf16>"),
        ("memref<4x4xf32, strided<[1, 4], offset: 2>>", "memref<4x4xf32, strided<[1, 4], offset: 2>>"),
        ("(tensor<2xf32>, i64) -> (f32, index)", "(tensor<2xf32>, i64) -> (f32, index)"),
        ("() -> ()", "() -> ()"),
    ] {
        let t = parser::parse_type_str(&mut ctx, src).unwrap();
        assert_eq!(printer::type_to_string(&ctx, t), printed);
    }
    for (src, printed) in [
        ("-3", "-3"),
        ("3 : i32", "3 : i32"),
        ("1.5 : f32", "1.5 : f32"),
        ("0x7FF0000000000000 : f64", "0x7FF0000000000000 : f64"),
        ("[1, [2, \"x\"]]", "[1, [2, \"x\"]]"),
        ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"),
        ("dense<[1.0, inf, -inf]> : tensor<3xf32>", "dense<[1.0, inf, -inf]> : tensor<3xf32>"),
        (
            "#aot.meta<inputs = [#aot.input<mutates_data = true>]>",
            "#aot.meta<inputs = [#aot.input<mutates_data = true>]>",
        ),
        ("{z = 1, a}", "{a, z = 1}"),
    ] {
        let a = parser::parse_attr_str(&mut ctx, src).unwrap();
        assert_eq!(printer::attr_to_string(&ctx, a), printed);
    }
    // Interning: equal data, equal id.
    let a1 = parser::parse_attr_str(&mut ctx, "[1, 2]").unwrap();
    let a2 = parser::parse_attr_str(&mut ctx, "[1,2]").unwrap();
    assert_eq!(a1, a2);
}

#[derive(Debug, Clone)]
enum Edit {
    Build(usize, usize),
    Replace(usize, usize),
    EraseUnused(usize),
    SetOperand(usize, usize),
    MoveToEnd(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..64usize, 0..64usize).prop_map(|(a, b)| Edit::Build(a, b)),
        (0..64usize, 0..64usize).prop_map(|(a, b)| Edit::Replace(a, b)),
        (0..64usize).prop_map(Edit::EraseUnused),
        (0..64usize, 0..64usize).prop_map(|(a, b)| Edit::SetOperand(a, b)),
        (0..64usize).prop_map(Edit::MoveToEnd),
    ]
}

proptest! {
    /// Random sequences of rewrites never break the use lists.
    #[test]
    fn use_lists_survive_random_rewrites(edits in prop::collection::vec(edit(), 1..80)) {
        let mut ctx = Context::new();
        let (module, b) = new_block_module(&mut ctx);
        let t = ctx.tensor_type(&[2], ElemType::F32);
        let mut rw = Rewriter::new(&mut ctx);
        rw.set_insertion_point(InsertPoint::End(b));
        let s = rw.build_typed("test.source", &[], &[], &[t]);
        let mut vals = vec![rw.result(s, 0)];
        for e in edits {
            let live: Vec<Value> = vals.iter().copied().filter(|&v| rw.defining_op(v).is_some_and(|o| !rw.is_erased(o))).collect();
            match e {
                Edit::Build(i, j) => {
                    rw.set_insertion_point(InsertPoint::End(b));
                    let v = rw.build1("test.op", &[live[i % live.len()], live[j % live.len()]], &[]).unwrap();
                    vals.push(v);
                }
                Edit::Replace(i, j) => {
                    let (from, to) = (live[i % live.len()], live[j % live.len()]);
                    rw.replace_all_uses(from, to);
                }
                Edit::EraseUnused(i) => {
                    let v = live[i % live.len()];
                    if !rw.has_uses(v) && live.len() > 1 {
                        let op = rw.defining_op(v).unwrap();
                        rw.erase_op(op);
                    }
                }
                Edit::SetOperand(i, j) => {
                    let user = live[i % live.len()];
                    let op = rw.defining_op(user).unwrap();
                    if rw.num_operands(op) > 0 {
                        rw.set_operand(op, 0, live[j % live.len()]);
                    }
                }
                Edit::MoveToEnd(i) => {
                    let op = rw.defining_op(live[i % live.len()]).unwrap();
                    rw.move_to_end(op, b);
                }
            }
        }
        check_use_lists(&ctx, module);
    }
}

/// A pass that adds an invalid op beside the op it runs on (a `test.op`
/// without operands), as the partitioner adds a backward function beside
/// the forward.
struct AddBadSibling;

impl pass::Pass for AddBadSibling {
    fn run(&mut self, ctx: &mut Context, op: Op, _: &mut pass::PassState) -> Result<(), Diagnostic> {
        let t = ctx.tensor_type(&[2], ElemType::F32);
        let mut rw = Rewriter::new(ctx);
        rw.set_insertion_point(InsertPoint::After(op));
        rw.build_typed("test.op", &[], &[], &[t]);
        Ok(())
    }
}

inventory::submit! {
    pass::PassInfo {
        argument: "test-add-bad-sibling",
        name: "AddBadSibling",
        summary: "adds an invalid op after the anchor",
        description: "",
        anchor: None,
        options: &[],
        statistics: &[],
        create: |_| Ok(Box::new(AddBadSibling)),
    }
}

/// verify-each checks what a pass added beside the op it ran on, not only
/// that op: such an op is otherwise printed invalid.
#[test]
fn verify_each_checks_ops_a_pass_adds_beside_its_anchor() {
    let (mut ctx, m) = value_used_in_a_region();
    let mut pm = pass::PassManager::parse("builtin.module(test.region(test-add-bad-sibling))").unwrap();
    let err = pm.run(&mut ctx, m, &mut std::io::sink()).unwrap_err();
    let text: Vec<&str> = err.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(text.iter().any(|m| m.contains("expected at least 1 operand")), "{text:?}");
    assert!(text.iter().any(|m| m.contains("verification failed after pass 'test-add-bad-sibling'")), "{text:?}");
}
