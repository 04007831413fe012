// The channel with a bump of examples/cfd/bump_channel.h (BumpChannel's defaults) as an
// unstructured tetrahedral mesh: [0, 3] x [0, 0.5] x [0, 1], the floor rising by
// 0.1 sin^2(pi (x - 1)) between x = 1 and x = 2. Physical surfaces "farfield" (the inflow and
// outflow planes x = 0 and x = 3) and "wall" (floor, ceiling and the two side walls), physical
// volume "fluid". Uniform mesh size 0.1 * size; `gmsh -setnumber size S` refines (S < 1).
// tools/make_cfd_meshes.sh writes the meshes the tests use.
DefineConstant[ size = 1 ];
length = 3;
width = 0.5;
height = 1;
bump_start = 1;
bump_end = 2;
bump_height = 0.1;
h = 0.1 * size;

// The profile in the x-z plane, extruded along y. The bump is a spline through n + 1 points
// of the sine, finer than any mesh size used; its ends are set to z = 0 exactly (sin(pi)^2 is
// 1.5e-33 in floating point), so the flat floor is flat to the last bit.
n = 40;
Point(1) = {0, 0, 0, h};
Point(10) = {bump_start, 0, 0, h};
For i In {1 : n - 1}
  x = bump_start + (bump_end - bump_start) * i / n;
  Point(10 + i) = {x, 0, bump_height * Sin(Pi * (x - bump_start) / (bump_end - bump_start))^2, h};
EndFor
Point(10 + n) = {bump_end, 0, 0, h};
Point(2) = {length, 0, 0, h};
Point(3) = {length, 0, height, h};
Point(4) = {0, 0, height, h};
Line(1) = {1, 10};
Spline(2) = {10 : 10 + n};
Line(3) = {10 + n, 2};
Line(4) = {2, 3};
Line(5) = {3, 4};
Line(6) = {4, 1};
Curve Loop(1) = {1 : 6};
Plane Surface(1) = {1};
extruded[] = Extrude {0, width, 0} { Surface{1}; };
fluid = extruded[1];

e = 1e-6 * length;
farfield() = Surface In BoundingBox{-e, -e, -e, e, width + e, height + e};
farfield() += Surface In BoundingBox{length - e, -e, -e, length + e, width + e, height + e};
wall() = Abs(Boundary{ Volume{fluid}; });
wall() -= farfield();
Physical Surface("farfield") = farfield();
Physical Surface("wall") = wall();
Physical Volume("fluid") = {fluid};
