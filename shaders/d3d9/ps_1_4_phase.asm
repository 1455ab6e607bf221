ps_1_4
def c0, -1.0, 0.5, 0.0, 1.0
texld r0, t0
texcrd r1.xyz, t1_dz
texcrd r4.xy, t2_dw.xyw
bem r2.xy, r0, r1
phase
texld r3, r2
texdepth r5
cnd r0, r1.w, r3, c0
