// The part of Vitis HLS's ap_int.h that generated code may use: declarations only.
#ifndef FPGAKERN_VITIS_API_AP_INT_H
#define FPGAKERN_VITIS_API_AP_INT_H

template <int W>
struct ap_uint {
    ap_uint();
    ap_uint(bool value);
    ap_uint(int value);
    ap_uint(unsigned value);
    ap_uint(long value);
    ap_uint(unsigned long value);
    ap_uint(long long value);
    ap_uint(unsigned long long value);
    unsigned to_uint() const;
    unsigned long long to_uint64() const;
    int to_int() const;
    int length() const;
};

#endif
