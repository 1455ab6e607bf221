ps_3_0
def c0, 0.5, 1.0, 0.0, -1.0
dcl_texcoord v0.xy
dcl_color1_centroid v1
dcl vFace
dcl vPos.xy
dcl_2d s0
texld r0, v0, s0
cmp r1, vFace, c0.y, c0.w
add r1.xy, vPos, c0.x
mul r2, r0, v[aL + 1]
frc r3, -r1_abs
texkill r3
mov oC0, r0
mov oDepth, r1.x
