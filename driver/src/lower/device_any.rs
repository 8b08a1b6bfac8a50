//! Lowering of `target device(any)` task sharing (seed 002; docs/task-sharing-lowering.md), the
//! constructs and `if_device` lines that [`crate::any`] parses. Each instance asks the runtime
//! for a device and a version (`__spread_any_acquire`) and runs the switch arm of that version,
//! a `target device(d)` with the version's construct-set around its own copy of the statement.

use crate::any::{self, AnyTarget, Entry, Plan};
use crate::directive;
use crate::lexer::DirectiveLine;
use crate::stmt::Item;

use super::{directive_pieces, last_holds, Ctx, Edit, LowerError, Lowered, Options, Piece, Walk};

/// The `target device(any)` pragma at view item `k` (directive `di`) where the walk stands:
/// refused where the construct cannot be lowered, else lowered with the `if_device` lines after
/// it.
pub(super) fn lower_directive(ctx: &Ctx, opts: &Options, w: &mut Walk, k: usize, di: usize) {
    let dl = ctx.pp.lexed.directives[di];
    let entry_lines = if_device_lines(ctx, k);
    // Its if_device lines belong to it, also when it is refused or wrong: no errors of their
    // own.
    w.any_consumed = k + 1 + entry_lines.len();
    if let Some(msg) = refusal(ctx, w, dl) {
        w.errors.push(LowerError { off: dl.start, msg });
        return;
    }
    let lowered = lower_any(
        ctx,
        k,
        (di, &entry_lines),
        w.out.constructs,
        opts.guard_device_macro,
        ctx.directive_line(dl),
    );
    if let Some(body) = w.take(lowered) {
        w.any_bodies.push(body);
    }
}

/// Why the construct at `dl` cannot be lowered where it is, if it cannot.
fn refusal(ctx: &Ctx, w: &Walk, dl: DirectiveLine) -> Option<String> {
    let pp = ctx.pp;
    let info = pp.line_info(dl.line);
    if info.file != pp.main_file {
        Some(format!("'target device(any)' is only supported in the source file being compiled, not in included file '{}' (the driver copies the construct's statement once per if_device arm in the file it compiles: move the function into a source file, or make the header's code a source file of its own)", pp.file_name(info.file)))
    } else if last_holds(&w.spread_bodies, dl.start) {
        Some(
            "'target device(any)' cannot be nested inside the loop of a 'target spread' construct"
                .into(),
        )
    } else if w.depth <= 0 {
        Some("'target device(any)' must be inside a function".into())
    } else {
        None
    }
}

/// The `if_device` lines that directly follow the `target device(any)` pragma at view item `k`
/// (with their view items).
fn if_device_lines(ctx: &Ctx, k: usize) -> Vec<(usize, DirectiveLine)> {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let mut lines = Vec::new();
    let mut j = k + 1;
    while let Some(Item::Pragma(p)) = ctx.view.items.get(j) {
        let pl = pp.lexed.directives[*p];
        if any::classify(src, toks, pl.first_tok, pl.end_tok) != any::Found::Entries {
            break;
        }
        lines.push((j, pl));
        j += 1;
    }
    lines
}

/// The construct at view item `k` (directive `di`, followed by the `if_device` lines
/// `entry_lines`), construct number `n`, the pragma's presumed line and the offset of its line.
fn lower_any(
    ctx: &Ctx,
    k: usize,
    (di, entry_lines): (usize, &[(usize, DirectiveLine)]),
    n: usize,
    guard: bool,
    (line, line_start): (u32, usize),
) -> Result<Lowered, LowerError> {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let dl = pp.lexed.directives[di];
    let t =
        any::parse_target(src, toks, dl.first_tok, dl.end_tok).map_err(|e| ctx.perror(e, dl))?;
    let mut warnings: Vec<LowerError> = t
        .warnings
        .iter()
        .map(|e| ctx.perror(e.clone(), dl))
        .collect();
    let entries = entries(ctx, &t, (dl, line), entry_lines, &mut warnings)?;
    let last_dl = entry_lines.last().map_or(dl, |&(_, pl)| pl);
    let plain: Vec<Entry> = entries.iter().map(|(e, _)| e.clone()).collect();
    let plan = any::plan(&t, &plain);
    if plan.missing_host {
        warnings.push(LowerError {
            off: ctx.tok_off(t.device_tok),
            msg: "no 'if_device(host)': the host does not share this construct's instances; it runs them (with the first entry's construct-set, reduced for the host) only under if(false) or when no device can".into(),
        });
    }
    let stmt = k + 1 + entry_lines.len();
    let (from, to) = statement(ctx, &plan, stmt, last_dl)?;
    let copy = copy_statement(ctx, from, to)?;
    let site = Site {
        t: &t,
        plan: &plan,
        n,
        line,
        guard,
    };
    let mut pieces = site.head(ctx);
    pieces.extend(site.arms(&entries, &copy));
    Ok(Lowered {
        edits: vec![
            Edit {
                start: line_start,
                end: last_dl.end,
                pieces,
            },
            Edit {
                start: to,
                end: to,
                pieces: vec![Piece::Text(site.tail())],
            },
        ],
        warnings,
        body: Some((from, to)),
    })
}

/// The construct's entries with the presumed line of the pragma each is written on: those of
/// its own line (`dl`, at `line`), then those of its `if_device` lines, one construct-set per
/// device kind and subarch.
fn entries(
    ctx: &Ctx,
    t: &AnyTarget,
    (dl, line): (DirectiveLine, u32),
    entry_lines: &[(usize, DirectiveLine)],
    warnings: &mut Vec<LowerError>,
) -> Result<Vec<(Entry, u32)>, LowerError> {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let mut entries: Vec<(Entry, u32)> = t.entries.iter().map(|e| (e.clone(), line)).collect();
    for &(_, pl) in entry_lines {
        let mut w = Vec::new();
        let es = any::parse_entries(src, toks, pl.first_tok + 3, pl.end_tok, &mut w)
            .map_err(|e| ctx.perror(e, pl))?;
        warnings.extend(w.into_iter().map(|e| ctx.perror(e, pl)));
        let eline = ctx.presumed_line_of(pl.start);
        for e in es {
            if entries
                .iter()
                .any(|(p, _)| p.arch == e.arch && p.subarch == e.subarch)
            {
                let sub = if e.subarch == 0 {
                    String::new()
                } else {
                    format!(", sm_{}", e.subarch)
                };
                return Err(ctx.perror(
                    directive::PError {
                        tok: e.tok,
                        msg: format!(
                            "'if_device({}{sub})' duplicates an earlier entry of this 'target device(any)': each device kind and subarch can have one construct-set",
                            pp.lexed.text(src, e.tok)
                        ),
                    },
                    pl,
                ));
            }
            entries.push((e, eline));
        }
    }
    if let (Some(tok), false) = (t.set_tok, entries.is_empty()) {
        return Err(ctx.perror(
            directive::PError {
                tok,
                msg: "a 'target device(any)' with 'if_device' entries cannot also have a construct-set of its own (which version would it belong to?); move it into an 'if_device' entry".into(),
            },
            dl,
        ));
    }
    if let (Some((_, tok)), false) = (&t.cost, entries.is_empty()) {
        return Err(ctx.perror(
            directive::PError {
                tok: *tok,
                msg: "'resources' on the 'target device(any)' line belongs to no version when there are 'if_device' entries; write it after each entry's construct-set".into(),
            },
            dl,
        ));
    }
    Ok(entries)
}

/// The byte range of the construct's statement, which starts at view item `stmt` (after its
/// last directive line `last_dl`): a loop when some construct-set is a loop construct.
fn statement(
    ctx: &Ctx,
    plan: &Plan,
    stmt: usize,
    last_dl: DirectiveLine,
) -> Result<(usize, usize), LowerError> {
    let what = "'target device(any)' must be followed by a structured block or a for loop";
    let at = |e: usize| LowerError {
        off: ctx.item_off_or(e, last_dl.end),
        msg: what.into(),
    };
    if !matches!(ctx.view.items.get(stmt), Some(Item::Tok(_))) {
        return Err(at(stmt));
    }
    let stmt_end = ctx.view.statement_end(stmt).map_err(at)?;
    let loop_words = ["distribute", "for", "loop", "simd"];
    if let Some(arm) = plan
        .arms
        .iter()
        .find(|a| a.set.words.iter().any(|w| loop_words.contains(&w.as_str())))
    {
        if ctx.view.text(stmt) != "for" {
            return Err(LowerError {
                off: ctx.item_off(stmt),
                msg: format!(
                    "'target device(any)' with the construct-set '{}' must be followed by a for loop",
                    arm.set.name()
                ),
            });
        }
    }
    Ok((ctx.item_off(stmt), ctx.item_end(stmt_end)))
}

/// The statement between byte offsets `from` and `to` of the preprocessed text, as pieces: one
/// more copy of it for another arm of a `target device(any)` switch, each line at its presumed
/// line (so clang's diagnostics and the debug information of every copy point at the source).
fn copy_statement(ctx: &Ctx, from: usize, to: usize) -> Result<Vec<Piece>, LowerError> {
    let pp = ctx.pp;
    let src = pp.text.as_str();
    let mut pieces = Vec::new();
    let (p0, p1) = (pp.phys_line_of(from), pp.phys_line_of(to.saturating_sub(1)));
    for p in p0..=p1 {
        let info = pp.line_info(p);
        if info.marker {
            continue;
        }
        let (ls, le) = pp.lexed.line_range(src, p);
        if info.file != pp.main_file {
            return Err(LowerError {
                off: ls,
                msg: "the statement of a 'target device(any)' construct cannot span an #include or lines of another file".into(),
            });
        }
        if !pp
            .lexed
            .lines
            .get(p as usize)
            .is_none_or(|l| l.starts_clean)
        {
            return Err(LowerError {
                off: ls,
                msg: "the statement of a 'target device(any)' construct is copied once per version, line by line: a token spanning lines (a raw string) cannot be in it".into(),
            });
        }
        let a = if p == p0 && !src[ls..from].trim().is_empty() {
            from
        } else {
            ls
        };
        let b = if p == p1 { to.min(le.max(ls)) } else { le };
        let text = &src[a..b.max(a)];
        if text.trim().is_empty() {
            continue;
        }
        let in_directive = pp
            .lexed
            .lines
            .get(p as usize)
            .is_some_and(|l| l.in_directive);
        if in_directive && text.trim_start().starts_with('#') {
            pieces.push(Piece::Directive {
                line: info.line,
                text: text.trim().to_string(),
            });
        } else {
            pieces.push(Piece::Line(info.line));
            pieces.push(Piece::Text(text.to_string()));
        }
    }
    Ok(pieces)
}

/// One construct being lowered: what the text before its arms, its arms and the text after its
/// statement are written from.
struct Site<'a> {
    /// The `target device(any)` line.
    t: &'a AnyTarget,
    /// Its versions and arms.
    plan: &'a Plan,
    /// Construct number.
    n: usize,
    /// The pragma's presumed line.
    line: u32,
    /// [`Options::guard_device_macro`].
    guard: bool,
}

impl Site<'_> {
    /// The pick of the runtime, `__spread_any_p_N`.
    fn pick(&self) -> String {
        format!("__spread_any_p_{}", self.n)
    }

    /// The variable host arms read the thread count from: a scalar, which their `target` takes
    /// by value. The pick itself would be mapped (an aggregate), and a `target nowait` on the
    /// host share uses mapped data where it is, in a frame that is gone by the time the arm
    /// runs.
    fn threads(&self) -> String {
        format!("__spread_any_t_{}", self.n)
    }

    /// The variables the instance's task shares: what the instance maps (a local array mapped
    /// tofrom gets its results), then the reduction variables of each arm that are not mapped;
    /// the task captures everything else by value as tasks do (a loop's `k` at the
    /// encounter). Also, per arm, its reduction variables that are not mapped.
    fn shared(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let t = self.t;
        let mut shared = t.shared.clone();
        let mut red_maps: Vec<Vec<String>> = Vec::new();
        for arm in &self.plan.arms {
            let extra: Vec<String> = arm
                .set
                .reduction_vars
                .iter()
                .filter(|v| !t.shared.contains(v))
                .cloned()
                .collect();
            for v in &extra {
                if !shared.contains(v) {
                    shared.push(v.clone());
                }
            }
            red_maps.push(extra);
        }
        (shared, red_maps)
    }

    /// The text before the arms: the site's versions, the task around an instance that is
    /// one (`nowait` or `depend`), and the acquire whose pick the switch reads.
    fn head(&self, ctx: &Ctx) -> Vec<Piece> {
        let (t, n, line) = (self.t, self.n, self.line);
        let versions: Vec<String> = self.plan.versions.iter().map(|v| v.initializer()).collect();
        let col = ctx.pp.lexed.tokens[t.device_tok].col + 1;
        let mut head = format!(
            "{{ static const __spread_any_version_t __spread_any_v_{n}[] = {{ {} }}; static const __spread_any_site_t __spread_any_s_{n} = {{ \"{}\", {line}, {col}, {}, __spread_any_v_{n} }};",
            versions.join(", "),
            ctx.file_lit,
            versions.len()
        );
        let mut pieces = vec![Piece::Line(line)];
        if t.nowait || !t.depend.is_empty() {
            let mut d = "#pragma omp task".to_string();
            if !t.nowait {
                // without nowait the encountering thread waits, after the dependences
                d.push_str(" if(0)");
            }
            let (shared, _) = self.shared();
            if !shared.is_empty() {
                d.push_str(&format!(" shared({})", shared.join(", ")));
            }
            for c in &t.depend {
                d.push(' ');
                d.push_str(c);
            }
            if t.nowait && !t.depend.is_empty() {
                // Created outside a parallel region the task runs at once: marked, it does not
                // wait there for the instances it depends on (its instance may follow them
                // instead).
                head.push_str(" __spread_any_instance_next();");
            }
            pieces.push(Piece::Text(head));
            pieces.push(Piece::Directive { line, text: d });
            pieces.push(Piece::Line(line));
            head = String::new();
        }
        head.push_str(" {");
        if t.nowait {
            head.push_str(" __spread_any_deferred();");
        }
        head.push_str(&self.acquire(ctx));
        pieces.push(Piece::Text(head));
        pieces
    }

    /// The instance's costs and maps, `__spread_any_acquire` and the `switch` on its pick.
    fn acquire(&self, ctx: &Ctx) -> String {
        let (t, n) = (self.t, self.n);
        let cxx = ctx.pp.cxx;
        let (cost_decl, costs) = any::cost_inits(self.plan, &format!("__spread_any_r_{n}"), cxx);
        let mut s = format!(
            " {cost_decl}const int64_t __spread_any_cost_{n}[] = {{ {} }};",
            costs.join(", ")
        );
        let (maps, nmaps) = if t.maps.is_empty() {
            ("(const __spread_any_map_t *)0".to_string(), 0)
        } else {
            let items: Vec<String> = t
                .maps
                .iter()
                .map(|m| {
                    format!(
                        "{{ (const void *){}, {}, {} }}",
                        m.ptr,
                        if cxx { &m.cxx_bytes } else { &m.bytes },
                        m.map_type
                    )
                })
                .collect();
            s.push_str(&format!(
                " const __spread_any_map_t __spread_any_map_{n}[] = {{ {} }};",
                items.join(", ")
            ));
            (format!("__spread_any_map_{n}"), t.maps.len())
        };
        let mut flags = Vec::new();
        if t.nowait {
            flags.push("__SPREAD_ANY_NOWAIT".to_string());
        }
        if let Some(c) = &t.cond {
            flags.push(format!("(({c}) ? 0 : __SPREAD_ANY_IF_FALSE)"));
        }
        let flags = if flags.is_empty() {
            "0".to_string()
        } else {
            flags.join(" | ")
        };
        let (p, threads) = (self.pick(), self.threads());
        let threads_decl = if self.sets().iter().flatten().any(|d| d.contains(&threads)) {
            format!(" const int32_t {threads} = {p}.__spread_threads;")
        } else {
            String::new()
        };
        s.push_str(&format!(
            " __spread_any_pick_t {p} = __spread_any_acquire(&__spread_any_s_{n}, __spread_any_cost_{n}, {maps}, {nmaps}, {flags});{threads_decl} switch ({p}.__spread_arm) {{"
        ));
        s
    }

    /// Each arm's construct-set directive, if it has one.
    fn sets(&self) -> Vec<Option<String>> {
        let threads = self.threads();
        self.plan
            .arms
            .iter()
            .map(|arm| arm.pragma(&threads))
            .collect()
    }

    /// The line arm `a`'s directives are attributed to: its `if_device` entry's.
    fn arm_line(&self, entries: &[(Entry, u32)], a: usize) -> u32 {
        self.plan
            .versions
            .iter()
            .find(|v| v.arm == a && !v.fallback)
            .and_then(|v| {
                entries
                    .iter()
                    .find(|(e, _)| e.arch == v.arch && e.subarch == v.subarch)
            })
            .map_or(self.line, |(_, l)| *l)
    }

    /// The switch's arms, each a `target device(d)` with its construct-set around its own copy
    /// (`copy`) of the statement; the last arm's statement is the one left in place.
    fn arms(&self, entries: &[(Entry, u32)], copy: &[Piece]) -> Vec<Piece> {
        let t = self.t;
        let p = self.pick();
        let (_, red_maps) = self.shared();
        let last = self.plan.arms.len() - 1;
        let mut pieces = Vec::new();
        for (a, set) in self.sets().into_iter().enumerate() {
            let aline = self.arm_line(entries, a);
            if a == last {
                pieces.push(Piece::Text(format!(" case {a}: default: {{")));
            } else {
                pieces.push(Piece::Text(format!(" case {a}: {{")));
            }
            let mut tgt = format!("#pragma omp target device({p}.__spread_device)");
            for c in &t.target_clauses {
                tgt.push(' ');
                tgt.push_str(c);
            }
            if !red_maps[a].is_empty() {
                tgt.push_str(&format!(" map(tofrom: {})", red_maps[a].join(", ")));
            }
            let set = set.map(|d| Piece::Directive {
                line: aline,
                text: d,
            });
            if t.nowait {
                // A `nowait` instance the runtime can complete asynchronously (outside a task
                // team; on a device, or on the host share for a host arm) runs its arm as a
                // `target nowait`, so that the instances a thread creates outside a parallel
                // region overlap (docs/task-sharing-lowering.md).
                pieces.push(Piece::Text(format!(" if (__spread_any_async(&{p})) {{")));
                pieces.extend(directive_pieces(self.guard, aline, format!("{tgt} nowait")));
                pieces.extend(set.clone());
                pieces.extend(copy.iter().cloned());
                pieces.push(Piece::Text(" } else {".into()));
            }
            pieces.extend(directive_pieces(self.guard, aline, tgt));
            pieces.extend(set);
            if a != last {
                pieces.extend(copy.iter().cloned());
                if t.nowait {
                    pieces.push(Piece::Text(" }".into()));
                }
                pieces.push(Piece::Text(" } break;".into()));
            }
        }
        pieces
    }

    /// The text after the statement: the last arm's `else` closes there, as the statement stays
    /// in place; then the release of the pick.
    fn tail(&self) -> String {
        let close_async = if self.t.nowait { " }" } else { "" };
        format!(
            "{close_async} }} break; }} __spread_any_release(&{}); }} }}",
            self.pick()
        )
    }
}
