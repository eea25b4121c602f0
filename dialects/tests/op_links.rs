//! The typed links between ops (a view's scatter inverse and back, an
//! in-place op's functional twin, a stateful random op's functional twin, a
//! metadata mutation's view) name registered ops, and point at each other
//! where they come in pairs.

use aot_dialects::r#mut::{InPlaceInterface, MetadataKind, MetadataMutationInterface};
use aot_dialects::rng::RandomInterface;
use aot_dialects::view::{view_of_scatter, Inverse, ScatterInterface, ViewInterface};
use aot_ir::fold::{Canonicalization, Fold};
use aot_ir::registry::all_ops;

#[test]
fn every_link_names_a_registered_op_and_pairs_round_trip() {
    aot_dialects::link();
    let mut links = 0;
    for def in all_ops() {
        if let Some(vi) = def.interface::<ViewInterface>() {
            if let Inverse::Scatter(s) = vi.inverse {
                let sd = s.def().unwrap_or_else(|| panic!("{}: scatter {s} is not registered", def.name));
                let back = sd.interface::<ScatterInterface>().map(|i| i.view.name());
                assert_eq!(back, Some(def.name), "{s} does not point back at {}", def.name);
                assert_eq!(view_of_scatter(s.name()).map(|v| v.name()), Some(def.name));
                links += 1;
            }
        }
        if let Some(si) = def.interface::<ScatterInterface>() {
            let vd = si.view.def().unwrap_or_else(|| panic!("{}: view {} is not registered", def.name, si.view));
            let inv = vd.interface::<ViewInterface>().map(|v| v.inverse);
            assert!(
                matches!(inv, Some(Inverse::Scatter(s)) if s.name() == def.name),
                "{} is not {}'s inverse",
                def.name,
                si.view
            );
        }
        if let Some(f) = def.interface::<InPlaceInterface>().and_then(|i| i.functional) {
            assert!(f.def().is_some(), "{}: functional twin {f} is not registered", def.name);
            links += 1;
        }
        if let Some(r) = def.interface::<RandomInterface>() {
            assert!(r.functional.def().is_some(), "{}: functional twin {} is not registered", def.name, r.functional);
            links += 1;
        }
        if let Some(MetadataKind::Relayout { view, .. }) = def.interface::<MetadataMutationInterface>().map(|m| m.kind)
        {
            assert!(
                view.def().is_some_and(|d| d.interface::<ViewInterface>().is_some()),
                "{}: {view} is not a view",
                def.name
            );
            links += 1;
        }
    }
    assert!(links > 20, "only {links} links found");
}

#[test]
fn folds_are_declared_on_the_ops_canonicalize_simplifies() {
    aot_dialects::link();
    let folds: Vec<&str> = all_ops().into_iter().filter(|d| d.interface::<Fold>().is_some()).map(|d| d.name).collect();
    for name in ["view.alias", "view.transpose", "view.reshape", "view.slice_scatter", "tensor.cast"] {
        assert!(folds.contains(&name), "{name} declares no fold");
    }
    assert!(!folds.contains(&"view.detach"), "a detach must not fold away: it stops gradients");
    let patterns = all_ops().into_iter().filter(|d| d.interface::<Canonicalization>().is_some()).count();
    assert!(patterns >= 8, "{patterns} ops declare canonicalization patterns");
}
