//! Constructs on one device: data begin/end/update and target-region launches (their kernel
//! parameters are built by [`super::mapping::params`]).
//!
//! Each construct runs in two parts. The first ([`DeviceSlot::enqueue_begin`] and its siblings)
//! decides under the mapping-table lock and enqueues the construct's copies and kernel on one
//! stream; it returns an [`InFlight`]. The second ([`InFlight::complete`]) waits for that stream
//! and does what must follow the device work: restoring host pointers, releasing entries,
//! freeing firstprivate buffers, or rolling back a data begin whose copies failed. A synchronous
//! construct runs both parts at once; a `nowait` construct on a device whose operations run
//! after the call returns (a GPU, a device on another node) returns after the first, and
//! libomp's target task polls the second (`__tgt_target_nowait_query`), as libomptarget's
//! asynchronous info object does: no thread blocks per operation.

use super::{DeviceSlot, Runtime};
use crate::device::{AllocKind, Launch, LaunchConfig};
use crate::error::{Result, ResultExt};
use crate::info::{self, bits};
use crate::ompt;
use crate::runtime::mapping::{self, Ctx, MapArgs, PostEnds, Undos};
use crate::time_trace;
use smallvec::SmallVec;

thread_local! {
    /// Set by [`after_events`]: events the next construct enqueued on this thread waits for
    /// before its first operation.
    static FIRST_WAIT: std::cell::RefCell<Vec<crate::device::Event>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// While [`kernels_after`] runs: the event the next kernel enqueued on this thread waits for
    /// (`Some(None)`: nothing to wait for), replaced by the end of that kernel.
    static KERNEL_ORDER: std::cell::RefCell<Option<Option<crate::device::Event>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` (which enqueues constructs) so that the kernels it enqueues wait for `prev`, then
/// each for the one before; returns `f`'s result and the end of the last kernel (or `prev`
/// when it enqueued none). Only the kernels are ordered: copies go on while earlier kernels run.
pub fn kernels_after<R>(
    prev: Option<crate::device::Event>,
    f: impl FnOnce() -> R,
) -> (R, Option<crate::device::Event>) {
    let outer = KERNEL_ORDER.with(|k| k.borrow_mut().replace(prev));
    let r = f();
    let last = KERNEL_ORDER.with(|k| std::mem::replace(&mut *k.borrow_mut(), outer));
    (r, last.flatten())
}

/// Runs `f` (which enqueues one construct) so that the construct's stream waits for `events`
/// before anything else it does (its copies included): a `nowait` construct ordered after the
/// constructs its task depends on, on the device, without a thread waiting for them.
pub fn after_events<R>(events: Vec<crate::device::Event>, f: impl FnOnce() -> R) -> R {
    if events.is_empty() {
        return f();
    }
    FIRST_WAIT.with(|w| *w.borrow_mut() = events);
    let r = f();
    FIRST_WAIT.with(|w| w.borrow_mut().clear());
    r
}

/// What a construct still has to do once the work it enqueued has finished.
enum After {
    /// A data begin: nothing, unless its copies failed (then its table changes are taken back).
    Begin(Undos),
    /// A data end: restore host pointers, release entries whose counts reached zero.
    End(PostEnds),
    /// An update: restore host pointers inside FROM ranges.
    Update(Vec<(usize, usize, usize)>),
    /// A target region: its data end, then its firstprivate buffers are freed.
    Launch {
        post: PostEnds,
        privates: Vec<usize>,
    },
}

/// A construct whose copies and kernel are enqueued on its stream (see the module's docs).
pub struct InFlight<'a> {
    cx: Ctx<'a, DeviceSlot>,
    after: After,
    /// The construct as tools see it, ended once it finishes.
    observed: Observed,
}

/// A construct on one device as tools see it: its OMPT region (`target` callbacks, trace
/// records) and its event in `LIBOMPTARGET_PROFILE`'s time trace (boxed: constructs move their
/// `InFlight` around, and it is rarely there). Both end when this is dropped.
struct Observed {
    tool: ompt::Region,
    _timed: Option<Box<time_trace::Scope>>,
}

impl Observed {
    /// Begins a construct of `kind` on `device`; `detail` is the time trace event's.
    fn begin(kind: ompt::Kind, device: usize, detail: impl FnOnce() -> String) -> Observed {
        // Stock's names.
        let name = match kind {
            ompt::Kind::Target => "Runtime: target exe",
            _ => "Runtime: Data Copy",
        };
        Observed {
            tool: ompt::Region::begin(kind, device),
            _timed: time_trace::scope(name, detail).map(Box::new),
        }
    }

    /// A data construct with `args` on `device`.
    fn data(kind: ompt::Kind, device: usize, args: &MapArgs) -> Observed {
        Observed::begin(kind, device, || {
            format!("Device={device};NumArgs={}", args.len())
        })
    }
}

impl<'a> InFlight<'a> {
    fn new(cx: Ctx<'a, DeviceSlot>, after: After, observed: Observed) -> Self {
        InFlight {
            cx,
            after,
            observed,
        }
    }

    /// The construct whose enqueue part ended with `r`: itself when that succeeded; else what it
    /// enqueued before the failure is finished now as usual (entries counted down are released)
    /// and the failure returned (the finishing one first).
    fn unless(self, r: Result<()>) -> Result<Self> {
        match r {
            Ok(()) => Ok(self),
            Err(e) => Err(self.complete().err().unwrap_or(e)),
        }
    }

    /// The device the construct runs on.
    pub fn device(&self) -> usize {
        self.cx.target.id
    }

    /// The construct will be completed later (polled, or with its region's end): whatever its
    /// device needs to tell without blocking starts now (see `Device::submit`). On failure the
    /// construct is finished at once and the failure returned.
    pub fn submitted(mut self) -> Result<Self> {
        let r = self.cx.target.dev.submit(&mut self.cx.stream);
        self.unless(r)
    }

    /// An event at the current end of the construct's stream (before it is
    /// [`submitted`](Self::submitted)): later constructs wait for it on the device. `None` when
    /// the device cannot record one (they then wait for the construct to finish instead).
    pub fn end_event(&mut self) -> Option<crate::device::Event> {
        self.cx.target.dev.record_event(&mut self.cx.stream).ok()
    }

    /// Whether the construct's device work has finished, when the device can tell without
    /// blocking (`None`: only [`complete`](Self::complete) can tell).
    pub fn query(&mut self) -> Result<Option<bool>> {
        self.cx.target.dev.stream_done(&mut self.cx.stream)
    }

    /// Waits for the construct's device work, then finishes it; returns its outcome.
    pub fn complete(self) -> Result<()> {
        let InFlight {
            mut cx,
            after,
            observed,
        } = self;
        // What finishing does (copies back, releases) is the construct's, whichever thread
        // finishes it; its end is reported when `observed` goes, after all of it.
        let _entered = observed.tool.enter();
        let slot = cx.target;
        let synced = {
            let _wait = time_trace::scope("Runtime: syncronize", || format!("Device={}", slot.id));
            slot.dev.synchronize(&mut cx.stream)
        };
        match after {
            After::Begin(undo) => {
                if synced.is_err() {
                    mapping::rollback(&mut cx, &mut slot.table.lock(), undo);
                }
                synced
            }
            After::End(post) => {
                synced?;
                mapping::end_finish(&mut cx, &mut slot.table.lock(), post)
            }
            After::Update(restore) => {
                synced?;
                mapping::update_finish(&slot.table.lock(), restore);
                Ok(())
            }
            After::Launch { post, privates } => {
                let r = synced
                    .context(|| "Executing target region abort target.".into())
                    .and_then(|_| {
                        mapping::end_finish(&mut cx, &mut slot.table.lock(), post)
                            .context(|| "Failed to process data after launching the kernel.".into())
                    });
                slot.free_privates(&privates);
                r
            }
        }
    }
}

impl DeviceSlot {
    fn ctx(&self, rt: &Runtime) -> Result<Ctx<'_, DeviceSlot>> {
        let mut stream = self.stream()?;
        // At exit (lazy coherence brings outputs home from `__tgt_unregister_lib`, an atexit
        // handler) the thread's locals are already destroyed: then there is nothing to wait for.
        let first = FIRST_WAIT
            .try_with(|w| std::mem::take(&mut *w.borrow_mut()))
            .unwrap_or_default();
        for ev in first {
            self.dev.wait_event(&mut stream, &ev)?;
        }
        Ok(Ctx {
            target: self,
            stream,
            usm: rt.usm() || self.dev.uses_host_memory(),
            filled: SmallVec::new(),
        })
    }

    /// `target enter data` / the begin of `target data`.
    pub fn data_begin(&self, rt: &Runtime, args: &mut MapArgs) -> Result<()> {
        self.enqueue_begin(rt, args)?.complete()
    }

    /// The first part of [`data_begin`](Self::data_begin): maps and enqueues the copies. A
    /// failure is taken back before it is returned.
    pub fn enqueue_begin(&self, rt: &Runtime, args: &mut MapArgs) -> Result<InFlight<'_>> {
        args.call_mappers(); // program code, so before the table is locked
        let observed = Observed::data(ompt::Kind::EnterData, self.id, args);
        let _entered = observed.tool.enter();
        let mut cx = self.ctx(rt)?;
        let mut undo = Undos::new();
        let r = {
            let mut table = self.table.lock();
            let r = mapping::begin(&mut cx, &mut table, args, false, &mut undo);
            mapping::mark_filling(&mut cx, &mut table).and(r)
        };
        match r {
            // The copies finish with the table unlocked: other threads map and unmap meanwhile.
            Ok(()) => Ok(InFlight::new(cx, After::Begin(undo), observed)),
            Err(e) => {
                self.take_back(&mut cx, undo);
                Err(e)
            }
        }
    }

    /// Takes back a failed data begin: waits for its copies, then undoes its table changes.
    fn take_back(&self, cx: &mut Ctx<'_, DeviceSlot>, undo: Undos) {
        // The construct has failed already: a failure to wait adds nothing to report.
        let _ = self.dev.synchronize(&mut cx.stream);
        let mut table = self.table.lock();
        mapping::rollback(cx, &mut table, undo);
    }

    /// `target exit data` / the end of `target data`.
    pub fn data_end(&self, rt: &Runtime, args: &MapArgs) -> Result<()> {
        self.enqueue_end(rt, args)?.complete()
    }

    /// The first part of [`data_end`](Self::data_end): counts down and enqueues the copies back.
    /// Entries whose counts reached zero stay in the table until their copies are done
    /// (libomptarget's delayed deletion); a construct finding one meanwhile maps it anew.
    pub fn enqueue_end(&self, rt: &Runtime, args: &MapArgs) -> Result<InFlight<'_>> {
        let args = &*args.with_mappers_called(); // program code, so before the table is locked
        let observed = Observed::data(ompt::Kind::ExitData, self.id, args);
        let _entered = observed.tool.enter();
        let mut cx = self.ctx(rt)?;
        let mut post = PostEnds::new();
        let r = {
            let mut table = self.table.lock();
            let r = mapping::end(&mut cx, &mut table, args, false, &mut post);
            mapping::mark_filling(&mut cx, &mut table).and(r)
        };
        InFlight::new(cx, After::End(post), observed).unless(r)
    }

    /// `target update`.
    pub fn data_update(&self, rt: &Runtime, args: &MapArgs) -> Result<()> {
        self.enqueue_update(rt, args)?.complete()
    }

    /// The first part of [`data_update`](Self::data_update): enqueues the copies.
    pub fn enqueue_update(&self, rt: &Runtime, args: &MapArgs) -> Result<InFlight<'_>> {
        let args = &*args.with_mappers_called(); // program code, so before the table is locked
        let observed = Observed::data(ompt::Kind::Update, self.id, args);
        let _entered = observed.tool.enter();
        let mut cx = self.ctx(rt)?;
        let mut restore = Vec::new();
        let r = {
            let mut table = self.table.lock();
            let r = mapping::update(&mut cx, &mut table, args, &mut restore);
            mapping::mark_filling(&mut cx, &mut table).and(r)
        };
        InFlight::new(cx, After::Update(restore), observed).unless(r)
    }

    /// A target region: maps its data, runs the kernel, unmaps.
    pub fn launch(
        &self,
        rt: &Runtime,
        region: usize,
        args: &mut MapArgs,
        cfg: &LaunchConfig,
    ) -> Result<()> {
        self.enqueue_launch(rt, region, args, cfg)?.complete()
    }

    /// The first part of [`launch`](Self::launch): maps the region's data, enqueues its copies,
    /// the kernel and the copies back, and counts its entries down. Until the kernel is done,
    /// every entry it uses carries the event of its end, so a construct of another thread that
    /// releases one waits for the kernel before it frees the memory.
    pub fn enqueue_launch(
        &self,
        rt: &Runtime,
        region: usize,
        args: &mut MapArgs,
        cfg: &LaunchConfig,
    ) -> Result<InFlight<'_>> {
        let (kernel, name) = self.kernel(&rt.program, region)?;
        args.call_mappers(); // program code, so before the table is locked
        let observed = Observed::begin(ompt::Kind::Target, self.id, || {
            format!(
                "Device={};NumTeams={};NumArgs={}",
                self.id,
                cfg.num_teams[0],
                args.len()
            )
        });
        let _entered = observed.tool.enter();
        let mut cx = self.ctx(rt)?;
        let mut privates: Vec<usize> = Vec::new();
        let mut undo = Undos::new();
        let r = {
            let mut table = self.table.lock();
            let r = mapping::begin(&mut cx, &mut table, args, false, &mut undo)
                .context(|| "Call to targetDataBegin failed, abort target.".into())
                .and_then(|_| mapping::params::kernel_params(&mut cx, &table, args, &mut privates));
            mapping::mark_filling(&mut cx, &mut table).and(r)
        };
        let params = match r {
            Ok(p) => p,
            Err(e) => {
                self.take_back(&mut cx, undo);
                self.free_privates(&privates);
                return Err(e.context("Failed to process data before launching the kernel."));
            }
        };
        if info::enabled(bits::KERNEL_LAUNCH) {
            // libomptarget prints this line from its plugin layer, with the plugin's prefix.
            eprintln!(
                "\"PluginInterface\" device {} info: Launching kernel {name} with {}",
                self.id,
                self.dev.describe_launch(kernel, cfg)
            );
        }
        // The kernel follows the construct's copies on the same stream (and the waits for other
        // constructs' copies in flight), the copies back follow the kernel: one wait, at the
        // end, covers them all.
        // Inside `kernels_after`: after the previous kernel, and this kernel's end for the next.
        let ordered = KERNEL_ORDER.with(|k| k.borrow_mut().as_mut().map(Option::take));
        let stream = &mut cx.stream;
        let launched = (|| {
            if let Some(Some(prev)) = &ordered {
                self.dev.wait_event(stream, prev)?;
            }
            ompt::submit(cfg.num_teams[0], || {
                self.dev.launch(
                    Launch {
                        kernel,
                        args: &params,
                        cfg,
                    },
                    stream,
                )
            })?;
            match ordered {
                Some(_) => self.dev.record_event(stream).map(Some),
                None => Ok(None),
            }
        })();
        if let Some(prev) = ordered {
            let next = match &launched {
                Ok(end) => end.clone(),
                Err(_) => prev,
            };
            KERNEL_ORDER.with(|k| *k.borrow_mut() = Some(next));
        }
        if let Err(e) = launched {
            // The construct's copies may still run: they finish before anything is freed.
            let _ = self.dev.synchronize(&mut cx.stream);
            self.free_privates(&privates);
            return Err(e.context("Executing target region abort target."));
        }
        let mut post = PostEnds::new();
        let r = {
            let mut table = self.table.lock();
            let r = mapping::end(&mut cx, &mut table, args, false, &mut post);
            cx.filled.extend(post.iter().map(|p| p.key()));
            mapping::mark_filling(&mut cx, &mut table).and(r)
        };
        let r = r.map_err(|e| e.context("Failed to process data after launching the kernel."));
        InFlight::new(cx, After::Launch { post, privates }, observed).unless(r)
    }

    fn free_privates(&self, privates: &[usize]) {
        for &p in privates {
            let _ = self.dev.free(p, AllocKind::Device);
        }
    }
}
