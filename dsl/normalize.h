// Normal form of arithmetic, applied as nodes are made (after constant folding), so that the
// primal graph and the derivative graphs built from it both get it:
//  - negations move outward to the consumer that absorbs them: a + (-b) -> a - b,
//    a - (-b) -> a + b, (-a) + (-b) -> -(a + b), (-a) * b -> -(a * b), (-a) / b -> -(a / b),
//    select(c, -a, -b) -> -select(c, a, b), |-a| -> |a|. Hash-consing makes each negation that
//    is left (before a store, a function, a one-sided select) one node, emitted once, and
//    lets -x and x share everything computed from x. Constants keep the sign they have, so a
//    product by a negative constant stays one multiplication (x + (-k) -> x - k and
//    x - (-k) -> x + k aside).
//  - constant factors combine where the result is the same double: x + x -> 2 * x (one
//    spelling of 2x), k1 * (k2 * x) -> (k1 k2) * x when k1 or k2 is a power of two (so
//    0.5 * (x + x) -> x), x / 2^k -> x * 2^-k.
// Every rule gives the bits of the original for finite values, except the sign of a sum that
// is exactly zero (-(a + b) is -0 where (-a) + (-b) is +0; the folding rule 0 - x -> -x is
// alike) and a product by two constants whose intermediate is subnormal or overflows.
#pragma once

#include "dsl/graph.h"

namespace dualjit {

// The normal form of op(a, b, c), made in `g`, or kNoNode when op(a, b, c) is already normal.
// Commutative operands arrive ordered by id; a, b, c are nodes of `g`.
NodeId normalized(Graph& g, Op op, NodeId a, NodeId b, NodeId c);

}  // namespace dualjit
