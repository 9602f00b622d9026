/* Protocol version 1 constants; firmware/PROTOCOL.md is the normative description. */
#ifndef TK_PROTOCOL_H
#define TK_PROTOCOL_H

#define TK_PROTOCOL_VERSION 1u
#define TK_FW_MAJOR 1u
#define TK_FW_MINOR 1u /* 1.1: GET_INPUT (the button) */
#define TK_FW_PATCH 0u

/* Requests (host -> firmware) */
#define TK_MSG_HELLO 0x01u
#define TK_MSG_PING 0x02u
#define TK_MSG_SET_FRAME 0x03u
#define TK_MSG_SET_BRIGHTNESS 0x04u
#define TK_MSG_SET_CONFIG 0x05u
#define TK_MSG_GET_STATS 0x06u
#define TK_MSG_GET_INPUT 0x07u /* since firmware 1.1; older firmware NAKs it UNKNOWN_TYPE */
/* Replies (firmware -> host) */
#define TK_MSG_ACK 0x80u
#define TK_MSG_INFO 0x81u
#define TK_MSG_PONG 0x82u
#define TK_MSG_STATS 0x86u
#define TK_MSG_INPUT 0x87u
#define TK_MSG_NAK 0xFFu

/* NAK error codes */
#define TK_ERR_BAD_CRC 1u
#define TK_ERR_BAD_COBS 2u
#define TK_ERR_TOO_LONG 3u
#define TK_ERR_BAD_LENGTH 4u
#define TK_ERR_UNKNOWN_TYPE 5u
#define TK_ERR_BAD_VALUE 6u
#define TK_ERR_BUSY 7u

/* Effects */
#define TK_FX_OFF 0u
#define TK_FX_SOLID 1u
#define TK_FX_BLINK 2u
#define TK_FX_PULSE 3u

/* Sizes */
#define TK_MAX_SQUARES 64u
#define TK_MAX_LEDS 128u
#define TK_SQUARE_BYTES 5u
#define TK_MAX_PAYLOAD (2u + 1u + TK_MAX_SQUARES * TK_SQUARE_BYTES + 2u) /* 325 */
#define TK_RX_CAP 330u
#define TK_PING_MAX 16u
#define TK_INFO_LEN 24u
#define TK_STATS_LEN 24u
#define TK_CONFIG_LEN 10u
#define TK_INPUT_LEN 8u
#define TK_COBS_WIRE_MAX 32u /* largest reply (INFO/STATS, 28 bytes) encoded + delimiter */

/* Timing */
#define TK_PERIOD_UNIT_MS 20u
#define TK_FRAME_INTERVAL_MS 20u   /* animation refresh */
#define TK_REFRESH_MS 1000u        /* static frames are rewritten this often (repairs glitches) */
#define TK_HOLD_MS 100u            /* after a received byte, no LED write for this long ... */
#define TK_WAIT_PERIOD_MS 4000u    /* waiting-for-host breathing period */
#define TK_WAIT_BLUE_MAX 24u

/* Current model (WS2812B datasheet): per channel at full drive, and quiescent per LED. */
#define TK_MA_PER_CHANNEL 20u
#define TK_MA_IDLE_PER_LED 1u

#endif
