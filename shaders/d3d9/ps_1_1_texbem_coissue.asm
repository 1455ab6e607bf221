ps_1_1
def c0, 0.5, 0.25, 1.0, 0.0
tex t0
texbem t1, t0
texbeml t2, t0
texreg2ar t3, t0
mul_x2 r0.xyz, t1, v0_bx2
+mov_sat r0.w, 1 - c0.z
mad_d2 r1.xyz, -t2_bias, v1, c0
+add r1.w, t3, -v0_bx2.w
cnd r0.xyz, r0.w, r1, t0
+cnd r0.w, r0.w, c0.x, r1
