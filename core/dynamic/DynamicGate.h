#pragma once

// The one shape of a dynamic gate's entry point. Census, Shadow, Attribution and ReproCells
// follow it, and so does every gate to come (seed matrix, order sweeps, permutation
// verdict, trials, ladder):
//
//     static Result run(const RunContext &ctx, const Request &request, RunPool &pool,
//                       const Progress &progress = {});
//
// - `ctx`: both trees of the comparison, prepared once (RunContext::open: the review
//   target, the environment, the sandbox, the tree cache).
// - `request`: the gate's own question (options, the node, the number of runs); plain data.
// - `pool`: runs the gate's pytest runs. The caller owns it, so another thread can stop the
//   gate at any time with pool.cancelAll(): the runs not yet done come back Cancelled and
//   the result says it was interrupted (never a pass or a fail).
// - `progress`: called from worker threads, one call at a time, as each run ends — a
//   suite-wide gate reports each run (RunPool::Progress), a gate about one node reports
//   the node's outcome in it (NodeRunCallback, Attribution.h).
// - Blocking; bad input (an unknown node, runs < 1) is Error::input before anything runs
//   for long; the result carries what the CLI prints and the GUI shows.
//
// This header holds no code: it is the contract the gates' headers point to.
