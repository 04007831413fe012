// A sphere of radius 0.5 at the origin inside the box [-5, 5]^3, meshed in tetrahedra: the
// subsonic flow over a sphere of the CFD example (examples/cfd). Physical surfaces "wall"
// (the sphere) and "farfield" (the box's six faces), physical volume "fluid". The mesh size
// is 0.1 * size on the sphere and grows linearly with the distance from it to 1.5 * size at
// distance 4; `gmsh -setnumber size S` refines (S < 1) or coarsens the whole mesh.
// tools/make_cfd_meshes.sh writes the meshes the tests use.
SetFactory("OpenCASCADE");
DefineConstant[ size = 1 ];
radius = 0.5;
half = 5;
Box(1) = {-half, -half, -half, 2 * half, 2 * half, 2 * half};
Sphere(2) = {0, 0, 0, radius};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };

e = 1e-3 * radius;
wall() = Surface In BoundingBox{-radius - e, -radius - e, -radius - e,
                                radius + e, radius + e, radius + e};
farfield() = Abs(Boundary{ Volume{3}; });
farfield() -= wall();
Physical Surface("farfield") = farfield();
Physical Surface("wall") = wall();
Physical Volume("fluid") = {3};

// Size from the distance to the sphere alone (not from points, curvature or the boundary),
// so one factor scales the whole mesh.
Field[1] = Distance;
Field[1].FacesList = {wall()};
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = 0.1 * size;
Field[2].SizeMax = 1.5 * size;
Field[2].DistMin = 0;
Field[2].DistMax = 4;
Background Field = 2;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
