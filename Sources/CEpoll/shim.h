// Linux's epoll and eventfd, which the Glibc module does not include. Empty elsewhere.
#ifndef MOCKBACKEND_CEPOLL_SHIM_H
#define MOCKBACKEND_CEPOLL_SHIM_H

#ifdef __linux__
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

// The event bits as plain constants: glibc declares them as an enum that also has
// macros of the same names, which imports awkwardly.
static const uint32_t mockbackend_epoll_in = EPOLLIN;
static const uint32_t mockbackend_epoll_out = EPOLLOUT;
static const uint32_t mockbackend_epoll_rdhup = EPOLLRDHUP;
static const uint32_t mockbackend_epoll_hup = EPOLLHUP;
static const uint32_t mockbackend_epoll_err = EPOLLERR;
static const uint32_t mockbackend_epoll_et = EPOLLET;
#endif

#endif
