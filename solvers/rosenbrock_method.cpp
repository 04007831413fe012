#include "solvers/rosenbrock_method.h"

namespace dualjit::solvers {
namespace {

RosenbrockMethod make_rodas4() {
  RosenbrockMethod r;
  r.name = "RODAS4";
  r.stages = 6;
  r.gamma = 0.25;
  r.error_order = 4;
  r.new_f = {true, true, true, true, true, true};
  auto& a = r.a;
  a[1][0] = 1.544;
  a[2][0] = 0.9466785280815826;
  a[2][1] = 0.2557011698983284;
  a[3][0] = 3.314825187068521;
  a[3][1] = 2.896124015972201;
  a[3][2] = 0.9986419139977817;
  a[4][0] = 1.221224509226641;
  a[4][1] = 6.019134481288629;
  a[4][2] = 12.53708332932087;
  a[4][3] = -0.687886036105895;
  a[5] = {a[4][0], a[4][1], a[4][2], a[4][3], 1.0, 0.0};
  auto& c = r.c;
  c[1][0] = -5.6688;
  c[2][0] = -2.430093356833875;
  c[2][1] = -0.2063599157091915;
  c[3][0] = -0.1073529058151375;
  c[3][1] = -9.594562251023355;
  c[3][2] = -20.47028614809616;
  c[4][0] = 7.496443313967647;
  c[4][1] = -10.24680431464352;
  c[4][2] = -33.99990352819905;
  c[4][3] = 11.7089089320616;
  c[5][0] = 8.083246795921522;
  c[5][1] = -7.981132988064893;
  c[5][2] = -31.52159432874371;
  c[5][3] = 16.31930543123136;
  c[5][4] = -6.058818238834054;
  // The last stage lands on the solution (stiffly accurate): y_new = y + sum a_6j k_j + k_6,
  // and k_6 itself is the error estimate.
  r.m = {a[4][0], a[4][1], a[4][2], a[4][3], 1.0, 1.0};
  r.e = {0, 0, 0, 0, 0, 1.0};
  return r;
}

}  // namespace

const RosenbrockMethod& rodas4() {
  static const RosenbrockMethod method = make_rodas4();
  return method;
}

}  // namespace dualjit::solvers
