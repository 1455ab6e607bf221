ps_1_3
texcoord t0
texm3x2pad t1, t0
texm3x2depth t2, t0
texreg2gb t3, t1
dp3_sat r0, t3_bx2, v0_bx2
lrp r0.xyz, r0, t0, c1
+sub_x4 r0.w, c2, t1
