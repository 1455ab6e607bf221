vs_1_0
// D3D8: no dcl; inputs come from the vertex declaration.
m4x4 oPos, v0, c0
slt r0, v1, c4
sge r1, v1, -c4
mov oD0, r0
mov oD1, r1
