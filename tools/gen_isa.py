#!/usr/bin/env python3
"""Generate src/hw/isa/tables.rs from the Bifrost ISA description.

Usage (from the crate root):

    python3 tools/gen_isa.py ISA.xml > src/hw/isa/tables.rs

Reads the XML instruction description (MIT-licensed data from Mesa,
src/panfrost/compiler/bifrost/ISA.xml; the freshness test in
src/hw/isa/opcode.rs uses the copy among the reference vectors, see
docs/DESIGN.md "The reference vectors") and writes
one `OpInfo` row per encoding variant ("state") of every FMA and ADD
instruction, already sorted into decoding priority (longest exact mask first,
ties in document order).  Modifiers whose value is spread over "derived"
bit-fields are resolved here, once, into lookup tables indexed by the
concatenated derived fields (and, where the encoding depends on it, by the
ordering of the first two source selectors), so that the Rust decoder and
encoder only index tables.  Python 3 standard library only.
"""

import itertools
import sys
import xml.etree.ElementTree as ET


def parse_cond(node, aliased=False):
    if node.tag == "reserved":
        return None
    if node.attrib.get("alias") and not aliased:
        return ["alias", parse_cond(node, True)]
    if "left" in node.attrib:
        return [node.tag, node.attrib["left"], node.attrib["right"]]
    return [node.tag] + [parse_cond(c) for c in node]


def parse_derived(node):
    out = []
    for d in node.findall("derived"):
        start, size = int(d.attrib["start"]), int(d.attrib["size"])
        conds = [parse_cond(c) for c in d]
        conds = (conds + [None] * (1 << size))[: 1 << size]
        out.append((start, size, conds))
    return out


def parse_mods(node):
    mods = []
    for m in node.findall("mod"):
        if m.attrib.get("pseudo"):
            continue
        start = m.attrib.get("start")
        size = int(m.attrib["size"])
        opts = [c.text if c.tag == "opt" else c.tag for c in m]
        if not opts and "opt" in m.attrib:
            opts = ["none", m.attrib["opt"]]
        default = m.attrib.get("default", "none" if "none" in opts else None)
        opts = (opts + ["reserved"] * (1 << size))[: 1 << size]
        mods.append({"name": m.attrib["name"],
                     "start": None if start is None else int(start),
                     "size": size, "default": default, "opts": opts})
    return mods


def parse_ins(ins):
    srcs = []
    for s in ins.findall("src"):
        if s.attrib.get("pseudo"):
            continue
        mask = int(s.attrib.get("mask", "0xff"), 0)
        start = int(s.attrib["start"], 0) if "start" in s.attrib else len(srcs) * 3
        srcs.append((start, mask))
    imms = []
    for i in ins.findall("immediate"):
        if i.attrib.get("pseudo"):
            continue
        imms.append((i.attrib["name"], int(i.attrib["start"]), int(i.attrib["size"])))
    staging = ins.attrib.get("staging", "")
    access, _, count = staging.partition("=")
    common = {
        "name": ins.attrib["name"],
        "unit": ins.attrib["unit"],
        "srcs": srcs,
        "imms": imms,
        "mods": parse_mods(ins),
        "staging": access,
        "staging_count": count,
        "dests": ins.attrib.get("dests", "1"),
        "message": ins.attrib.get("message", "none"),
        "last": bool(ins.attrib.get("last")),
        "table": bool(ins.attrib.get("table")),
        "pseudo": bool(ins.attrib.get("pseudo")),
    }
    encs = ins.findall("encoding")
    if not encs:
        st = dict(common)
        st["mask"] = int(ins.attrib["mask"], 0)
        st["exact"] = int(ins.attrib["exact"], 0)
        st["derived"] = parse_derived(ins)
        st["test"] = []
        return [st]
    states = []
    for enc in encs:
        st = dict(common)
        st["mods"] = [dict(m) for m in common["mods"]]
        for cp in enc.findall("copy"):
            for m in st["mods"]:
                if m["name"] == cp.attrib["name"]:
                    m["start"] = int(cp.attrib["start"])
        st["mask"] = int(enc.attrib["mask"], 0)
        st["exact"] = int(enc.attrib["exact"], 0)
        st["derived"] = parse_derived(enc)
        st["test"] = parse_cond(list(enc)[0])
        states.append(st)
    return states


def keys_of(expr):
    if isinstance(expr, list):
        out = set()
        for e in expr[1:]:
            out |= keys_of(e)
        return out
    if expr is None or expr.startswith("#"):
        return set()
    return {expr}


def evaluate(expr, ctx, ordering):
    if expr == []:
        return True
    if expr is None or expr[0] == "alias":
        return False
    op = expr[0]
    if op in ("eq", "neq"):
        def val(x):
            if x.startswith("#"):
                return x[1:]
            if x == "ordering":
                return ordering
            return ctx[x]
        a, b = val(expr[1]), val(expr[2])
        return (a == b) if op == "eq" else (a != b)
    args = [evaluate(e, ctx, ordering) for e in expr[1:]]
    if op == "and":
        return all(args)
    if op == "or":
        return any(args)
    raise ValueError(op)


def build_luts(st):
    """Returns (ordered, {mod name: [option index or 255 per (ordering, derived value)]})."""
    keys = set()
    if st["test"]:
        keys |= keys_of(st["test"])
    for (_, _, conds) in st["derived"]:
        for c in conds:
            if c is not None:
                keys |= keys_of(c)
    ordered = "ordering" in keys
    keys.discard("ordering")
    keys = sorted(keys)
    mods = {m["name"]: m for m in st["mods"]}
    width = sum(size for (_, size, _) in st["derived"])
    orderings = ["lt", "gt"] if ordered else [None]
    backwards = []
    for order in orderings:
        table = [None] * (1 << width)
        for values in itertools.product(*[mods[k]["opts"] for k in keys]):
            ctx = dict(zip(keys, values))
            if not evaluate(st["test"], ctx, order):
                continue
            param, shift, ok = 0, 0, True
            for (_, size, conds) in st["derived"]:
                hit = None
                for j, c in enumerate(conds):
                    if evaluate(c, ctx, order):
                        hit = j
                        break
                if hit is None:
                    ok = False
                    break
                param |= hit << shift
                shift += size
            if not ok:
                continue
            # Several states may share one encoding (e.g. equivalent
            # swizzles); like Mesa's table the last one in product order wins.
            table[param] = values
        backwards.append(table)
    luts = {}
    for j, k in enumerate(keys):
        if mods[k]["start"] is not None:
            continue
        lut = []
        for table in backwards:
            for values in table:
                if values is None:
                    lut.append(255)
                else:
                    lut.append(mods[k]["opts"].index(values[j]))
        luts[k] = lut
    return ordered, luts


def rs_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def count_rs(c):
    if c == "":
        return "StagingCount::None"
    if c.isdigit():
        return "StagingCount::Fixed(%s)" % c
    return {"format": "StagingCount::Format", "sr_count": "StagingCount::SrCount",
            "vecsize": "StagingCount::Vecsize"}[c]


MESSAGES = {
    "none": "None", "atest": "Atest", "atomic": "Atomic", "attribute": "Attribute",
    "barrier": "Barrier", "blend": "Blend", "job": "Job", "job_management": "JobManagement",
    "load": "Load", "store": "Store", "tex": "Tex", "tile": "Tile", "vartex": "VarTex",
    "varying": "Varying", "z_stencil": "ZStencil",
}


def emit_state(st, variant):
    ordered, luts = build_luts(st)
    nsrc = len(st["srcs"])
    out = []
    out.append("    OpInfo {")
    out.append("        name: %s," % rs_str(st["name"]))
    out.append("        variant: %d," % variant)
    out.append("        unit: Unit::%s," % ("Fma" if st["unit"] == "fma" else "Add"))
    out.append("        mask: 0x%x," % st["mask"])
    out.append("        exact: 0x%x," % st["exact"])
    out.append("        srcs: &[%s]," % ", ".join(
        "SrcField { start: %d, allowed: 0x%x }" % s for s in st["srcs"]))
    mods = []
    for m in st["mods"]:
        last = m["name"][-1]
        src = int(last) if last in "0123" and int(last) < nsrc else None
        lut = luts.get(m["name"], [])
        mods.append(
            "            ModField { name: %s, start: %s, size: %d, default: %s, src: %s, opts: &[%s], lut: &[%s] },"
            % (rs_str(m["name"]),
               "None" if m["start"] is None else "Some(%d)" % m["start"],
               m["size"],
               "None" if m["default"] is None else "Some(%s)" % rs_str(m["default"]),
               "None" if src is None else "Some(%d)" % src,
               ", ".join(rs_str(o) for o in m["opts"]),
               ", ".join(str(x) for x in lut)))
    if mods:
        out.append("        mods: &[")
        out.extend(mods)
        out.append("        ],")
    else:
        out.append("        mods: &[],")
    derived = []
    for (start, size, conds) in st["derived"]:
        reserved = sum((1 << i) for i, c in enumerate(conds) if c is None)
        derived.append("DerivedField { start: %d, size: %d, reserved: 0x%x }" % (start, size, reserved))
    out.append("        derived: &[%s]," % ", ".join(derived))
    out.append("        ordered: %s," % ("true" if ordered else "false"))
    out.append("        immediates: &[%s]," % ", ".join(
        "ImmField { name: %s, start: %d, size: %d }" % (rs_str(n), s, z) for (n, s, z) in st["imms"]))
    acc = st["staging"]
    out.append("        staging: Staging { read: %s, write: %s, count: %s }," % (
        "true" if "r" in acc else "false", "true" if "w" in acc else "false",
        count_rs(st["staging_count"])))
    out.append("        message: Message::%s," % MESSAGES[st["message"]])
    out.append("        last: %s," % ("true" if st["last"] else "false"))
    dests = st["dests"]
    out.append("        dests: %s," % ("1" if dests == "true" else dests))
    out.append("        table: %s," % ("true" if st["table"] else "false"))
    out.append("    },")
    return "\n".join(out)


def main():
    root = ET.parse(sys.argv[1]).getroot()
    order = []  # (unit, name, variant, state) in document order
    by_name = {}
    for ins in root.findall("ins"):
        if ins.attrib.get("pseudo"):
            continue
        states = parse_ins(ins)
        key = ("*" if ins.attrib["unit"] == "fma" else "+") + ins.attrib["name"]
        by_name[key] = states
        if key not in order:
            order.append(key)
    print("// @generated by tools/gen_isa.py from Mesa's Bifrost ISA description")
    print("// (Mesa's src/panfrost/compiler/bifrost/ISA.xml, MIT; the test reads the copy")
    print("// among the reference vectors, docs/DESIGN.md). Do not edit by hand; regenerate with:")
    print("//     python3 tools/gen_isa.py ISA.xml > src/hw/isa/tables.rs")
    print("//! Generated opcode tables: one row per encoding variant, in decoding priority order.")
    print()
    print("use super::opcode::*;")
    print()
    for unit, is_fma in (("FMA", True), ("ADD", False)):
        rows = []
        for key in order:
            if (key[0] == "*") != is_fma:
                continue
            for i, st in enumerate(by_name[key]):
                rows.append(st | {"variant": i})
        maxmask = (1 << (23 if is_fma else 20)) - 1
        rows.sort(key=lambda st: maxmask ^ st["mask"])
        print("/// Every %s-unit encoding variant, in decoding priority order." % unit)
        print("pub static %s_OPS: &[OpInfo] = &[" % unit)
        for st in rows:
            print(emit_state(st, st["variant"]))
        print("];")
        print()
        # Each name's rows, so that a lookup by name needs no scan of the
        # table (nor a cache filled by the first compile in a process).
        index = {}
        for i, st in enumerate(rows):
            index.setdefault(st["name"], []).append(i)
        print("/// `%s_OPS` row indices per instruction name: names in byte order" % unit)
        print("/// (for a binary search), each name's rows in decoding priority order.")
        print("pub static %s_BY_NAME: &[(&str, &[u16])] = &[" % unit)
        for name in sorted(index, key=lambda n: n.encode()):
            print("    (%s, &[%s])," % (rs_str(name), ", ".join(str(i) for i in index[name])))
        print("];")
        print()


if __name__ == "__main__":
    main()
