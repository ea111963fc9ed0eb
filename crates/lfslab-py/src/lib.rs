//! lfslab's Python binding (`lfslab._lfslab`): the same library the CLI
//! runs, called with the GIL released. Each call returns JSON text (the
//! reports `lfslab run --json` and `compare` write); the Python package
//! (`python/lfslab`) turns it into dicts and DataFrames.
//!
//! Errors: bad input raises `ScenarioError(field, value, reason, message)`;
//! a run that fails raises `RunError(message)`. A long run polls for Ctrl-C
//! at each progress tick and stops with KeyboardInterrupt.

use lfslab::compare::{self as cmp, CompareError};
use lfslab::engine::{self, RunError as EngineRunError};
use lfslab::scenario::{Scenario, ScenarioError as ScenError, ScenarioFile};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::rc::Rc;

// Large tables on transparent huge pages, as the CLI has them (speed only).
#[global_allocator]
static ALLOC: lfslab::huge_pages::HugePageAlloc = lfslab::huge_pages::HugePageAlloc;

create_exception!(_lfslab, ScenarioError, PyException, "A scenario field has a bad value: args are (field, value, reason, message).");
create_exception!(_lfslab, RunError, PyException, "A simulation run failed.");

/// Marker carried by the unwinding that stops a run on Ctrl-C.
struct Interrupted;

fn scenario_err(e: &ScenError) -> PyErr {
    match e {
        ScenError::Invalid { field, value, reason } => {
            ScenarioError::new_err((field.clone(), value.clone(), reason.clone(), e.to_string()))
        }
        ScenError::Parse(m) => ScenarioError::new_err((String::new(), String::new(), m.clone(), e.to_string())),
    }
}

fn input_err(field: &str, value: &str, reason: String) -> PyErr {
    ScenarioError::new_err((field.to_string(), value.to_string(), reason.clone(), format!("{field} = {value}: {reason}")))
}

fn run_err(e: &EngineRunError) -> PyErr {
    RunError::new_err(e.to_string())
}

/// The scenario file `source` names: `kind` is "name" (a built-in or a
/// path, as the CLI takes them), "toml" (scenario text) or "json" (the TOML
/// schema as JSON, from a Python dict). `set` are `--set` overrides.
fn scenario_file(kind: &str, source: &str, set: &[String]) -> PyResult<(ScenarioFile, PathBuf)> {
    let (text, base) = match kind {
        "name" => lfslab::scenario::source_text(source, "scenario").map_err(|e| input_err("scenario", source, e))?,
        "toml" => (source.to_string(), PathBuf::from(".")),
        "json" => {
            let v: serde_json::Value =
                serde_json::from_str(source).map_err(|e| input_err("scenario", "(dict)", format!("not a table of the TOML schema: {e}")))?;
            let text = toml::to_string(&v).map_err(|e| input_err("scenario", "(dict)", format!("cannot be written as TOML: {e}")))?;
            (text, PathBuf::from("."))
        }
        _ => return Err(input_err("kind", kind, "valid: name, toml, json".into())),
    };
    let f = Scenario::file_from_toml_with(&text, set).map_err(|e| scenario_err(&e.with_overrides(set)))?;
    Ok((f, base))
}

/// A progress observer that stops the run when Python has a pending signal
/// (Ctrl-C): it takes the GIL for a moment at each tick.
fn interrupt_check() -> engine::Progress {
    Rc::new(|_| {
        if Python::with_gil(|py| py.check_signals()).is_err() {
            std::panic::resume_unwind(Box::new(Interrupted));
        }
    })
}

/// Run `f` with the GIL released, turning a Ctrl-C stop into KeyboardInterrupt.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.allow_threads(|| match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) if p.is::<Interrupted>() => Err(PyKeyboardInterrupt::new_err("lfslab run interrupted")),
        Err(p) => std::panic::resume_unwind(p),
    })
}

/// Run one scenario; returns `{"summary": row, "report": report}` as JSON
/// (the report is `lfslab run --json`'s).
#[pyfunction]
#[pyo3(signature = (kind, source, seed=None, overrides=Vec::new()))]
fn run(py: Python<'_>, kind: &str, source: &str, seed: Option<u64>, overrides: Vec<String>) -> PyResult<String> {
    let (file, base) = scenario_file(kind, source, &overrides)?;
    let mut s = Scenario::from_file_in(file, &base).map_err(|e| scenario_err(&e.with_overrides(&overrides)))?;
    if let Some(seed) = seed {
        s = s.with_seed(seed);
    }
    let name = s.name.clone();
    detached(py, move || {
        let report = engine::run_with_progress(s, Some(interrupt_check())).map_err(|e| run_err(&e))?;
        // The summary table's row, as `compare` prints one per design.
        let run = cmp::DesignRun { design: name, description: String::new(), scenario_toml: String::new(), report };
        let out = serde_json::json!({ "summary": cmp::SummaryRow::of(&run), "report": run.report });
        Ok(out.to_string())
    })
}

/// The scenario resolved (every default filled in), as TOML.
#[pyfunction]
#[pyo3(signature = (kind, source, overrides=Vec::new()))]
fn resolve(kind: &str, source: &str, overrides: Vec<String>) -> PyResult<String> {
    let (file, base) = scenario_file(kind, source, &overrides)?;
    let s = Scenario::from_file_in(file, &base).map_err(|e| scenario_err(&e.with_overrides(&overrides)))?;
    Ok(s.to_toml())
}

/// Run the workload on each design (`lfslab compare`), one after another;
/// returns the comparison as JSON (comparison.json).
#[pyfunction]
#[pyo3(signature = (kind, source, designs, scale=1.0, seed=None, overrides=Vec::new()))]
fn compare(
    py: Python<'_>,
    kind: &str,
    source: &str,
    designs: Vec<String>,
    scale: f64,
    seed: Option<u64>,
    overrides: Vec<String>,
) -> PyResult<String> {
    let (fs_set, set): (Vec<String>, Vec<String>) = overrides.iter().cloned().partition(|s| s.trim_start().starts_with("fs."));
    let (file, base) = scenario_file(kind, source, &set)?;
    let designs = cmp::designs_by_name(&designs).map_err(|e| input_err("designs", "", e.to_string()))?;
    let name = if kind == "name" { source.to_string() } else { file.name.clone().unwrap_or_else(|| "scenario".into()) };
    let settings = cmp::Settings { scale, seed, base, jobs: 1, fs_overrides: fs_set, ..cmp::Settings::default() };
    detached(py, move || {
        let c = cmp::run(&name, &file, &designs, &settings, |_, _, _| {}, Some(interrupt_check())).map_err(|e| match e {
            CompareError::Scenario { design, error } => {
                let e = error.with_overrides(&overrides);
                match &e {
                    ScenError::Invalid { field, value, reason } => ScenarioError::new_err((
                        field.clone(),
                        value.clone(),
                        reason.clone(),
                        format!("design {design}: {e}"),
                    )),
                    _ => scenario_err(&e),
                }
            }
            CompareError::Run { design, error } => RunError::new_err(format!("design {design}: {error}")),
            e => input_err("designs", "", e.to_string()),
        })?;
        Ok(c.to_json())
    })
}

/// (name, description) of every design `compare` knows.
#[pyfunction]
fn designs() -> Vec<(String, String)> {
    cmp::DESIGNS.iter().map(|d| (d.name.to_string(), d.description.to_string())).collect()
}

/// The built-in scenario names.
#[pyfunction]
fn builtins() -> Vec<String> {
    lfslab::scenario::BUILTIN_NAMES.iter().map(|s| s.to_string()).collect()
}

#[pymodule]
fn _lfslab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(designs, m)?)?;
    m.add_function(wrap_pyfunction!(builtins, m)?)?;
    Ok(())
}
