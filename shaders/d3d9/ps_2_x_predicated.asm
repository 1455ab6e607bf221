ps_2_x
def c0, 0.5, 1.0, 0.0, -1.0
defi i0, 3, 0, 0, 0
dcl t0.xy
dcl_centroid v0
dcl_2d s0
dcl_cube s1
dcl_volume s2
texld_pp r0, t0, s0
texldp r1, t0, s1
texldb r2, t0, s2
texldd r3, t0, s0, t0, t0
dsx r4, t0
dsy r5, t0
dp2add_sat r6.x, r0, c0, c0.z
setp_ge p0, r0, c0.x
(p0) mov r7, c0
rep i0
add r0, r0, r7
endrep
mov oC0, r0
mov oC1, r6.x
