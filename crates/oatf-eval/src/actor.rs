//! Compiled actors: what trace filtering (format §6) needs of each declared actor.

use oatf_model::{Execution, Phase};
use oatf_primitives::extract_protocol;

/// The protocol role of an actor, from the suffix of its mode (format §6.1 `direction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// `*_server`: incoming messages are requests, outgoing ones responses.
    Server,
    /// `*_client`: outgoing messages are requests, incoming ones responses.
    Client,
}

/// What trace filtering needs of one declared actor: its name, protocol, role and terminal phases.
#[derive(Clone, Debug)]
pub(crate) struct CompiledActor {
    pub(crate) name: String,
    pub(crate) mode: String,
    pub(crate) protocol: String,
    pub(crate) role: Option<Role>,
    /// Names of the phases without a trigger (the terminal phases, format §5).
    pub(crate) terminal_phases: Vec<String>,
}

impl CompiledActor {
    pub(crate) fn new(name: &str, mode: &str, phases: &[Phase]) -> Self {
        let role = if mode.ends_with("_server") {
            Some(Role::Server)
        } else if mode.ends_with("_client") {
            Some(Role::Client)
        } else {
            None
        };
        let terminal_phases = phases
            .iter()
            .enumerate()
            .filter(|(_, phase)| phase.trigger.is_none())
            .map(|(i, phase)| {
                phase
                    .name
                    .clone()
                    .unwrap_or_else(|| oatf_model::generated_phase_name(i))
            })
            .collect();
        CompiledActor {
            name: name.to_owned(),
            mode: mode.to_owned(),
            protocol: extract_protocol(mode).to_owned(),
            role,
            terminal_phases,
        }
    }
}

/// The actors of a normalized execution: normalization turns the single-phase and multi-phase forms
/// into one actor named `default` (N-006, N-007), so the actors list is all there is to read.
pub(crate) fn compile_actors(execution: Option<&Execution>) -> Vec<CompiledActor> {
    execution
        .and_then(|e| e.actors.as_ref())
        .map(|actors| {
            actors
                .iter()
                .map(|actor| CompiledActor::new(&actor.name, &actor.mode, &actor.phases))
                .collect()
        })
        .unwrap_or_default()
}
