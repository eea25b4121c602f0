//! Hostile-input limits of the IR core: the verifier rejects tensor types
//! whose shape no later layer can handle (even when built programmatically,
//! past the parser), op walks do not recurse on IR depth, and the parser's
//! nesting limit holds for every recursive construct of the grammar.

use aot_ir::*;

inventory::submit! {
    OpDef {
        name: "limits.source",
        summary: "produces a value",
        results: Arity::Exact(1),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: "limits.region",
        summary: "an op with one region",
        regions: 1,
        traits: Traits::NO_TERMINATOR,
        ..OpDef::DEFAULT
    }
}

fn opts() -> ParseOptions {
    ParseOptions { file: "t".into(), first_line: 1 }
}

fn module_block(ctx: &mut Context) -> (Op, Block) {
    let module = parse_module(ctx, "", &opts()).unwrap();
    let b = ctx.single_block(module, 0).unwrap();
    (module, b)
}

fn verify_messages(ctx: &Context, root: Op) -> Vec<String> {
    match verify(ctx, root) {
        Ok(()) => Vec::new(),
        Err(ds) => ds.iter().map(|d| d.message.clone()).collect(),
    }
}

#[test]
fn verifier_rejects_unsound_tensor_types() {
    let mut ctx = Context::new();
    let (module, b) = module_block(&mut ctx);
    let negative = ctx.tensor_type(&[2, -3], ElemType::F32);
    let overflow = ctx.tensor_type(&[4611686018427387905, 4], ElemType::F32);
    let bytes = ctx.tensor_type(&[1 << 62], ElemType::F64);
    let rank = ctx.tensor_type(&vec![1; 65], ElemType::F32);
    let dynamic = ctx.tensor_type(&[DYNAMIC, 2], ElemType::F32);
    let fine = ctx.tensor_type(&[1 << 62], ElemType::I8);
    let name = ctx.op_name_id("limits.region");
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point(InsertPoint::End(b));
    for t in [negative, overflow, bytes, rank, dynamic, fine] {
        rw.build_typed("limits.source", &[], &[], &[t]);
    }
    // A block argument is checked as well.
    let r = rw.create_region();
    let inner = rw.create_block(r, &[negative]);
    let mut st = OperationState::new(name, rw.current_loc());
    st.regions.push(r);
    rw.create(st);
    assert_eq!(rw.ctx().block_args(inner).len(), 1);
    assert_eq!(
        verify_messages(&ctx, module),
        [
            "'limits.source' op result #0: invalid type 'tensor<2x-3xf32>': dimension 1 has negative size -3",
            "'limits.source' op result #0: invalid type 'tensor<4611686018427387905x4xf32>': its element count overflows a 64-bit integer",
            "'limits.source' op result #0: invalid type 'tensor<4611686018427387904xf64>': its size in bytes overflows a 64-bit integer",
            "'limits.source' op result #0: invalid tensor type of rank 65: rank 65 is more than the limit of 64 (raise it with AOT_MAX_RANK)",
            "'limits.source' op result #0: invalid type 'tensor<?x2xf32>': dynamic dimensions are reserved for symbolic shapes and not supported",
            "'limits.region' op argument #0 of block #0 in region #0: invalid type 'tensor<2x-3xf32>': dimension 1 has negative size -3",
        ]
    );
}

#[test]
fn parser_rejects_the_same_types_where_written() {
    let mut ctx = Context::new();
    let e = parser::parse_type_str(&mut ctx, "tensor<4611686018427387905x4xf32>").unwrap_err();
    assert_eq!(
        e.message,
        "invalid type 'tensor<4611686018427387905x4xf32>': its element count overflows a 64-bit integer"
    );
    assert!(parser::parse_type_str(&mut ctx, "tensor<2x?x3xf32>").is_ok());
    assert!(parser::parse_type_str(&mut ctx, "tensor<4611686018427387904xi8>").is_ok());
}

/// Builds `depth` nested `limits.region` ops under a module's block.
fn nest(ctx: &mut Context, b: Block, depth: usize) -> Op {
    let name = ctx.op_name_id("limits.region");
    let mut rw = Rewriter::new(ctx);
    let mut block = b;
    let mut innermost = None;
    for _ in 0..depth {
        rw.set_insertion_point(InsertPoint::End(block));
        let r = rw.create_region();
        let inner = rw.create_block(r, &[]);
        let mut st = OperationState::new(name, rw.current_loc());
        st.regions.push(r);
        innermost = Some(rw.create(st));
        block = inner;
    }
    innermost.unwrap()
}

#[test]
fn walks_do_not_recurse_on_ir_depth() {
    // Far deeper than a test thread's 2 MiB stack could recurse.
    let depth = 200_000;
    let mut ctx = Context::new();
    let (module, b) = module_block(&mut ctx);
    let innermost = nest(&mut ctx, b, depth);
    let mut pre = Vec::new();
    ctx.walk_pre(module, &mut |op| pre.push(op));
    let mut post = Vec::new();
    ctx.walk_post(module, &mut |op| post.push(op));
    assert_eq!(pre.len(), depth + 1);
    assert_eq!(pre[0], module);
    assert_eq!(*pre.last().unwrap(), innermost);
    post.reverse();
    assert_eq!(pre, post);
}

#[test]
fn walk_order_is_program_order() {
    let src = "limits.region {\n  %a = limits.source : f32\n  limits.region {\n    %b = limits.source : f32\n  }\n}\n%c = limits.source : f32\n";
    let src =
        src.replace("limits.region {", "\"limits.region\"() ({").replace("  }\n}", "  }) : () -> ()\n}) : () -> ()");
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &src, &opts()).unwrap();
    let name = |ctx: &Context, op: Op| ctx.op_name(op).to_string();
    let mut pre = Vec::new();
    ctx.walk_pre(m, &mut |op| pre.push(name(&ctx, op)));
    assert_eq!(
        pre,
        ["builtin.module", "limits.region", "limits.source", "limits.region", "limits.source", "limits.source"]
    );
    let mut post = Vec::new();
    ctx.walk_post(m, &mut |op| post.push(name(&ctx, op)));
    assert_eq!(
        post,
        ["limits.source", "limits.source", "limits.region", "limits.region", "limits.source", "builtin.module"]
    );
}

#[test]
fn every_recursive_construct_counts_toward_the_nesting_limit() {
    let limit = size::Limits::max_nesting();
    let over = limit + 1;
    let cases = [
        format!("%x = limits.source {{limits.a = {}}} : f32", "[".repeat(over)),
        format!("%x = limits.source {{limits.a = {}}} : f32", "{b = ".repeat(over)),
        format!("%x = limits.source {{limits.a = {}}} : f32", "#limits.p<b = ".repeat(over)),
        format!("%x = limits.source {{limits.a = dense<{}", "[".repeat(over + 1)),
        format!("%x = limits.source : {}", "(".repeat(over)),
        format!("%x = limits.source : f32 loc({}", "fused[".repeat(over)),
        format!("%x = limits.source : f32 loc({}", "\"n\"(".repeat(over)),
        "module {\n".repeat(over),
    ];
    for src in cases {
        let mut ctx = Context::new();
        let e = parse_module(&mut ctx, &src, &opts()).unwrap_err();
        assert_eq!(
            e.message,
            format!("nesting deeper than {limit} (raise the limit with AOT_MAX_NESTING)"),
            "for {}",
            &src[..60.min(src.len())]
        );
    }
    // At the limit the nesting parses and prints.
    let src = "module {\n".repeat(limit) + &"}\n".repeat(limit);
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, &src, &opts()).unwrap();
    verify(&ctx, m).unwrap();
    let printed = print_op(&ctx, m, PrintOptions::default());
    assert_eq!(printed.matches("module {").count(), limit);
}
